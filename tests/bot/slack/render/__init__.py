"""Tests for the Slack renderers: Block Kit reports, evidence, questions, mrkdwn."""
