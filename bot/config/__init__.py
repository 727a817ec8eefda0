"""Configuration: the one `Settings`, read from the environment once."""
