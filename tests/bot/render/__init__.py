"""Tests for the platform-neutral renderers: plan, wording, console text, chart."""
