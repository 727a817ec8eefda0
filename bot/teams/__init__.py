"""The Microsoft Teams front end: Bot Framework activities in, answer cards out."""
