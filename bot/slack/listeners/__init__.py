"""Every Slack listener, as one table of routes; each module owns one kind of Slack surface."""

from __future__ import annotations

from slack_bolt.async_app import AsyncApp

from bot.slack.deps import SlackDeps
from bot.slack.listeners import actions, commands, events, report, shortcuts
from bot.slack.listeners.routes import Route, register

__all__ = ["ROUTES", "register_listeners"]

#: What the Slack front end listens to, in the order Bolt tries it.
ROUTES: tuple[Route, ...] = (
    *commands.ROUTES,
    *events.ROUTES,
    *actions.ROUTES,
    *report.ROUTES,
    *shortcuts.ROUTES,
)


def register_listeners(app: AsyncApp, deps: SlackDeps) -> None:
    """Register every route with `app` (the fast lane reads the same `ROUTES`)."""
    register(ROUTES, app, deps)
