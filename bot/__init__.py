"""runai-why's front ends: the CLI, the console demo and (later) Slack, over one engine."""
