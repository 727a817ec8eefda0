"""Tests for the pure renderers: plain text and Slack Block Kit."""
