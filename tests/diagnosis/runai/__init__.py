"""Tests for the Run:ai HTTP client: auth, transport and the read methods."""
