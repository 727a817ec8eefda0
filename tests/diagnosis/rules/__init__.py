"""Tests for the classification rules."""
