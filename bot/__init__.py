"""runai-why's bot: Slack and Teams front ends, the CLI and the console demo, over one engine."""
