"""Composition: the command line, the web server, the runtime wired from the settings, the demo."""
