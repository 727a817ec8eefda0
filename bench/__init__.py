"""The benchmark: the real HTTP app, signed Slack requests, the simulator at 50 ms per call."""
