"""What the Slack listeners need, built once at start-up and passed in (no globals)."""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.conversation import ConversationEngine, StateStore
from bot.slack.threads import ThreadOwnership

__all__ = ["SlackDeps"]

#: Slack retries an event for up to ~6 minutes; remember what we answered for an hour.
DEDUPE_TTL_S = 3600


@dataclass(frozen=True)
class SlackDeps:
    """The engine, store and thread-ownership cache shared by every listener of one process."""

    engine: ConversationEngine
    store: StateStore
    dedupe_ttl_s: int = DEDUPE_TTL_S
    runai_url: str | None = None
    """`RUNAI_URL`, for the report's "Open in Run:ai" link (built from it and IDs only)."""
    threads: ThreadOwnership = field(default_factory=ThreadOwnership)
