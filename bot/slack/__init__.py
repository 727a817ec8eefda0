"""The Slack front end: a gate and a thin Bolt `AsyncApp` over the platform-neutral engine."""
