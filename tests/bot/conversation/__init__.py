"""Tests for the platform-neutral conversation engine."""
