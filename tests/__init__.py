"""The runai-why test suite, mirroring the packages it tests."""
