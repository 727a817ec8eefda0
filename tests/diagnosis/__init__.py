"""Tests for the diagnosis engine."""
