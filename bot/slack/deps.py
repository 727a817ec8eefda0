"""What the Slack listeners need, built once at start-up and passed in (no globals)."""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.config import DEDUPE_TTL_S
from bot.conversation import ConversationEngine, StateStore
from bot.slack.intake import Notices
from bot.slack.threads import ThreadOwnership
from bot.work import WorkQueue

__all__ = ["SlackDeps"]


@dataclass(frozen=True)
class SlackDeps:
    """The engine, store, work queue and caches shared by every listener of one process."""

    engine: ConversationEngine
    store: StateStore
    queue: WorkQueue
    queue_deadline_s: float = 300.0
    """`QUEUE_DEADLINE_S`: how long a request may wait before it is dropped (and told)."""
    dedupe_ttl_s: int = DEDUPE_TTL_S
    runai_url: str | None = None
    """`RUNAI_URL`, for the report's "Open in Run:ai" link (built from it and IDs only)."""
    threads: ThreadOwnership = field(default_factory=ThreadOwnership)
    notices: Notices = field(default_factory=Notices)
