"""Tests for the bot: CLI, rendering, conversation and Slack front end."""
