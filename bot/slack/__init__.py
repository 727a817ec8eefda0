"""The Slack front end: a thin Bolt `AsyncApp` over the platform-neutral conversation engine."""
