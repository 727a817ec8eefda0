"""Registers every Slack listener; each module owns one kind of Slack surface."""

from __future__ import annotations

from slack_bolt.async_app import AsyncApp

from bot.slack.deps import SlackDeps
from bot.slack.listeners import actions, commands, events, report, shortcuts

__all__ = ["register_listeners"]


def register_listeners(app: AsyncApp, deps: SlackDeps) -> None:
    """Attach the command, event, action, report-button and shortcut listeners to `app`."""
    commands.register(app, deps)
    events.register(app, deps)
    actions.register(app, deps)
    report.register(app, deps)
    shortcuts.register(app, deps)
