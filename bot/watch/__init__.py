"""Watched projects: a channel subscribes, a poller finds new failures, the push posts them."""
