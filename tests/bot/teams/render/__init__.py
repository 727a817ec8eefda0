"""Tests for the Teams renderers: Adaptive Card reports, evidence, card text."""
