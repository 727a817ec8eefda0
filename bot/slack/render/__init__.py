"""Slack's renderers: planned reports, questions and notices as Block Kit; pure, no I/O."""
