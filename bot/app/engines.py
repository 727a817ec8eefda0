"""The conversation engine a serving front end (Slack, Teams) gets from the settings."""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import datetime

from bot.authz import Authorizer
from bot.config import Settings
from bot.conversation import Access, ConversationEngine, Identify, StateStore
from bot.durable.flight import Flights
from bot.ops.audit import AuditSink
from bot.watch.commands import WatchCommands
from bot.watch.engine import Place, WatchingEngine
from diagnosis import KubeConnector, RunaiReader

__all__ = ["serving_engine"]


def serving_engine(
    settings: Settings,
    identify: Identify,
    *,
    runai: RunaiReader,
    kube: KubeConnector | None,
    store: StateStore,
    authorizer: Authorizer,
    audit: AuditSink,
    clock: Callable[[], datetime | None],
    flights: Flights | None,
    max_concurrent: int,
    mention: Callable[[str], str] = str,
    watch: WatchCommands | None = None,
    place: Place | None = None,
) -> ConversationEngine:
    """The engine for one front end: its own `identify` (and `mention`), everything else shared.

    Channel defaults, channel projects and the diagnosis deadline come from `settings`; the
    per-process limit (`max_concurrent`) depends on the process's role; the clients, store,
    authorizer, audit sink and flights are the process's. With `watch`, the engine also
    answers the subscription commands (`bot.watch`); `place` adds what the front end knows of
    where to post (Teams: the service URL).
    """
    access = Access(authorizer, identify, channel_projects=settings.authz.channel_projects)
    make: Callable[..., ConversationEngine] = (
        ConversationEngine
        if watch is None
        else functools.partial(WatchingEngine, watch=watch, place=place)
    )
    return make(
        runai=runai,
        kube=kube,
        store=store,
        channel_defaults=settings.conversation.default_clusters,
        max_concurrent=max_concurrent,
        deadline_s=settings.diagnosis.deadline_s,
        clock=clock,
        audit=audit,
        access=access,
        flights=flights,
        mention=mention,
    )
