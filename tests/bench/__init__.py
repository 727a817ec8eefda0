"""Tests of the benchmark's logic that does not depend on timing."""
