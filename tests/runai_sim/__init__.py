"""Tests for the simulated Run:ai control plane."""
