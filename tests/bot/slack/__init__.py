"""Slack front end tests and the test doubles they share (fake Web API, signed requests)."""
