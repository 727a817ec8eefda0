"""The push side of one process, from the settings: alerts' route, watches' poller and commands.

`build_watches` makes the subscriptions and the commands the engines answer (first: the
front ends' engines need them); `build_push` then makes the `push` handler the process's
worker runs (with the posters of the platforms it serves), `POST /alerts/alertmanager` when
`ALERTMANAGER_TOKEN` is set, and the watch poller, which runs wherever a worker runs (one
replica at a time holds its lease).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Mapping
from dataclasses import dataclass, field
from datetime import datetime

import redis.asyncio as redis
from pydantic import ValidationError
from starlette.routing import Route

from bot.alerts.channels import AlertChannels
from bot.alerts.resolver import AlertRouting
from bot.alerts.route import AlertIngress
from bot.authz import Authorizer
from bot.config import ConfigError, Settings, is_placeholder
from bot.conversation import StateStore
from bot.conversation.clusters import ClusterDirectory
from bot.durable.flight import Flights
from bot.ops.audit import AuditSink
from bot.push import Kv, MemoryKv, Planner, Poster, PushWork, RedisKv
from bot.watch.commands import WatchCommands
from bot.watch.poller import PUSH_DEADLINE_S, Lister, WatchPoller
from bot.watch.subscriptions import Declared, Subscriptions
from bot.work import WorkQueue
from diagnosis import KubeConnector, RunaiReader

__all__ = ["PushRuntime", "Watches", "build_push", "build_watches", "declared_watches"]


@dataclass(frozen=True)
class Watches:
    """The subscriptions (kept in `kv`) and the commands that change them."""

    kv: Kv
    subscriptions: Subscriptions
    commands: WatchCommands


@dataclass
class PushRuntime:
    """The handler, routes, commands and poller of the push side."""

    work: PushWork
    commands: WatchCommands
    kv: Kv
    subscriptions: Subscriptions
    poller: WatchPoller | None = None
    routes: list[Route] = field(default_factory=list)

    def start(self) -> None:
        """Start polling (in the running loop)."""
        if self.poller is not None:
            self.poller.start()

    async def stop(self) -> None:
        """Stop polling and give the lease up."""
        if self.poller is not None:
            await self.poller.stop()


def declared_watches(settings: Settings) -> list[Declared]:
    """`WATCHES`, checked; `ConfigError` names the entry that is wrong."""
    declared = []
    tenant = settings.teams.tenant_id or ""
    for index, raw in enumerate(settings.push.watches):
        # A Teams entry is in the one tenant the bot serves unless it says otherwise.
        entry = {"team": tenant, **raw} if raw.get("platform") == "teams" else raw
        try:
            declared.append(Declared.model_validate(entry))
        except ValidationError as error:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in error.errors()
            )
            raise ConfigError(f"WATCHES[{index}] is not a watch ({problems})") from None
    return declared


def build_watches(
    settings: Settings,
    *,
    runai: RunaiReader,
    redis_client: redis.Redis | None,
    platforms: Collection[str],
    kv: Kv | None = None,
) -> Watches:
    """The watches of `WATCHES` and those made in chat, for channels of `platforms`."""
    kv = kv or (RedisKv(redis_client) if redis_client is not None else MemoryKv())
    subscriptions = Subscriptions(kv, declared_watches(settings))
    commands = WatchCommands(runai, subscriptions, postable=platforms)
    return Watches(kv, subscriptions, commands)


def build_push(
    settings: Settings,
    *,
    runai: RunaiReader,
    lister: Lister | None,
    kube: KubeConnector | None,
    store: StateStore,
    redis_client: redis.Redis | None,
    queue: WorkQueue,
    posters: Mapping[str, Poster],
    authorizer: Authorizer,
    flights: Flights | None = None,
    audit: AuditSink | None = None,
    clock: Callable[[], datetime | None] = lambda: None,
    slack_team: Callable[[], Awaitable[str]] | None = None,
    kv: Kv | None = None,
    watches: Watches | None = None,
) -> PushRuntime:
    """Everything the push side needs, sharing the process's clients, store and queue.

    `authorizer` (the engines' own, with its cache) checks the subscriber of a watch made in
    chat; `watches` are those the engines already answer (None: built here, on `kv`).
    """
    if watches is None:
        watches = build_watches(
            settings, runai=runai, redis_client=redis_client, platforms=set(posters), kv=kv
        )
    kv, subscriptions = watches.kv, watches.subscriptions
    routing = AlertRouting(
        runai,
        kv,
        channels=settings.push.alert_channels,
        slack_team=slack_team,
        teams_target=subscriptions.teams_target,
    )
    work = PushWork(
        runai=runai,
        kube=kube,
        store=store,
        planner=Planner(
            kv,
            window_s=settings.push.group_window_s,
            max_posts_per_h=settings.push.max_posts_per_h,
        ),
        posters=posters,
        authorizer=authorizer,
        alerts=routing,
        flights=flights,
        audit=audit,
        deadline_s=settings.diagnosis.deadline_s,
        clock=clock,
    )
    token = (
        settings.push.alertmanager_token.get_secret_value()
        if settings.push.alertmanager_token
        else ""
    )
    routes = []
    if not is_placeholder(token):
        # The webhook refuses what `ALERT_CHANNELS` gives no channel before it queues it.
        clusters = ClusterDirectory(runai, flights=flights)
        ingress = AlertIngress(
            token.strip(),
            queue,
            channels=AlertChannels(settings.push.alert_channels, clusters.clusters),
            default_cluster=settings.push.alert_cluster,
            deadline_s=PUSH_DEADLINE_S,
            max_per_group=settings.push.alert_max_per_group,
        )
        routes = ingress.routes()
    poller = None
    if lister is not None:
        poller = WatchPoller(
            lister,
            runai,
            kv,
            subscriptions,
            queue,
            authorizer=authorizer,
            interval_s=settings.push.watch_interval_s,
            storm_threshold=settings.push.watch_storm_threshold,
        )
    return PushRuntime(work, watches.commands, kv, subscriptions, poller, routes)
