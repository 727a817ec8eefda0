"""What one process owns while it serves, built from the settings: clients, front ends, worker.

`build_runtime` builds the clients once (`bot.app.clients`), the watches, then each front
end that is configured (Slack, Teams, or both: `bot.web.frontend.FrontEnd`) around an engine
of its own over those same clients, then the push side with every front end's poster, and
the worker that answers the queue for all of them. Front ends never build clients of their
own, and never import this package: they are given what they use.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

import httpx
import redis.asyncio as redis
from starlette.routing import Route

from bot.app.clients import kube_directory, runai_client, state_store, work_queue
from bot.app.engines import serving_engine
from bot.app.pages import page_routes
from bot.app.pushing import PushRuntime, build_push, build_watches
from bot.authz import Authorizer
from bot.config import Settings
from bot.conversation import StateStore
from bot.durable.flight import FLIGHT_LOCK_TTL_S, Flights
from bot.ops.audit import build_audit_sink
from bot.push import Poster
from bot.slack.frontend import SlackFrontEnd, build_slack
from bot.web.frontend import FrontEnd
from bot.work import Handler, Worker, WorkQueue
from diagnosis import KubeConnector, KubeDirectory, RunaiClient

if TYPE_CHECKING:
    from bot.teams.runtime import TeamsRuntime

__all__ = ["Runtime", "build_runtime"]


@dataclass
class Runtime:
    """What one process owns while it serves: the clients, the front ends, push and worker."""

    store: StateStore
    redis: redis.Redis | None
    authorizer: Authorizer
    queue: WorkQueue
    push: PushRuntime
    """Watches and alerts (`bot.app.pushing`): the alert route, the poller (where a worker runs)."""
    runai: RunaiClient | None = None
    """The Run:ai client this process built (and closes); None when it was given one."""
    kube: KubeDirectory | None = None
    """The Kubernetes clients this process built (and closes)."""
    flights: Flights | None = None
    """The single-flight the engines, authorizer and push share (stopped before Redis closes)."""
    slack: SlackFrontEnd | None = None
    teams: TeamsRuntime | None = None
    metrics_token: str | None = None
    worker: Worker | None = None
    """This process's worker (embedded in `serve`, or the whole of `runai-why worker`)."""
    shutdown_grace_s: float = 20.0
    pages: list[Route] = field(default_factory=list)
    """`/privacy` and `/terms` (`bot.app.pages`), which the Teams app manifest links."""

    @property
    def front_ends(self) -> list[FrontEnd[Handler]]:
        """The front ends this process serves, Slack's first."""
        return [front for front in (self.slack, self.teams) if front is not None]

    def start(self) -> None:
        """Start the worker and the watch poller, where this process has a worker."""
        if self.worker is not None:
            self.worker.start()
            self.push.start()

    async def aclose(self) -> None:
        """Drain the front ends and stop the worker at once, then close the clients.

        Both wait within the one grace period (the worker finishes or hands back), so a
        SIGTERM is done within `SHUTDOWN_GRACE_S` plus the hand-back, as the README promises
        for Kubernetes' `terminationGracePeriodSeconds`.
        """
        grace_s = self.shutdown_grace_s
        stopping: list[Awaitable[object]] = [front.drain(grace_s) for front in self.front_ends]
        if self.worker is not None:
            stopping.append(self.worker.stop(grace_s))
        stopping.append(self.push.stop())
        await asyncio.gather(*stopping)
        await self.authorizer.aclose()  # its reads ahead use the clients closed below
        for front in self.front_ends:  # with their engines' reads ahead
            await front.aclose()
        if self.flights is not None:  # flights outlive the reads ahead that started them
            await self.flights.aclose()
        await self.queue.aclose()  # its enqueue pipelines, before the Redis client
        if self.runai is not None:
            await self.runai.aclose()
        if self.redis is not None:
            await self.redis.aclose()
        if self.kube is not None:
            await self.kube.aclose()


def build_runtime(
    settings: Settings,
    *,
    runai: RunaiClient | None = None,
    kube: KubeConnector | None = None,
    clock: Callable[[], datetime | None] = lambda: None,
    socket_mode: bool = False,
    teams_transport: httpx.AsyncBaseTransport | None = None,
    worker: bool | None = None,
) -> Runtime:
    """Validate settings (fail fast with a clear message) and build every collaborator.

    `runai`, `kube`, `clock` and `teams_transport` (every outbound Teams call) are seams for
    tests and the simulator; production passes none of them and gets clients built from the
    settings (KUBE_CLUSTERS for Tier 2).
    Slack is served unless only Teams is configured. `worker` (default `EMBEDDED_WORKER`)
    gives the process a worker for the queue.
    """
    # One ConfigError naming every missing setting of the platforms configured (and Run:ai's).
    slack_secrets = settings.serve_secrets(socket_mode=socket_mode, runai=runai is None)
    store, redis_client = state_store(settings)
    owned_runai: RunaiClient | None = None
    if runai is None:
        runai = owned_runai = runai_client(settings, redis_client)
    owned_kube: KubeDirectory | None = None
    if kube is None:
        kube = owned_kube = kube_directory(settings)
    # A leader's lock outlives it by at most the claim idle time: a request reclaimed from a
    # dead worker never waits out that worker's lock on its own diagnosis.
    flights = Flights(
        redis_client,
        report_ttl_s=settings.diagnosis.cache_ttl_s,
        lock_ttl_s=min(FLIGHT_LOCK_TTL_S, settings.queue.claim_idle_s),
    )
    authorizer = Authorizer.from_settings(settings, runai, redis_client, flights)
    audit = build_audit_sink(redis_client)
    queue = work_queue(settings, redis_client)
    platforms = {"slack"} if slack_secrets is not None else set()
    if settings.teams.configured:
        platforms.add("teams")
    watches = build_watches(settings, runai=runai, redis_client=redis_client, platforms=platforms)
    # `worker=True` is `runai-why worker`, a process that only diagnoses.
    concurrency = settings.diagnosis.concurrency(dedicated=worker is True)
    make_engine = functools.partial(
        serving_engine,
        settings,
        max_concurrent=concurrency,
        runai=runai,
        kube=kube,
        store=store,
        authorizer=authorizer,
        audit=audit,
        clock=clock,
        flights=flights,
        watch=watches.commands,
    )
    slack = None
    if slack_secrets is not None:
        token, signing_secret, _ = slack_secrets
        slack = build_slack(
            settings,
            token=token,
            signing_secret=signing_secret,
            make_engine=make_engine,
            store=store,
            queue=queue,
            redis_client=redis_client,
        )
    teams = None
    if settings.teams.configured:
        # The Teams SDK's models cost ~50 MB of memory: loaded only where Teams is served.
        from bot.teams.runtime import build_teams  # noqa: PLC0415

        teams = build_teams(
            settings,
            make_engine=make_engine,
            redis_client=redis_client,
            transport=teams_transport,
            queue=queue,
        )
    posters: dict[str, Poster] = {
        front.platform: front.poster for front in (slack, teams) if front is not None
    }
    push = build_push(
        settings,
        runai=runai,
        lister=runai,
        kube=kube,
        store=store,
        redis_client=redis_client,
        queue=queue,
        posters=posters,
        authorizer=authorizer,
        flights=flights,
        audit=audit,
        clock=clock,
        slack_team=slack.team if slack is not None else None,
        watches=watches,
    )
    runtime = Runtime(
        store=store,
        redis=redis_client,
        authorizer=authorizer,
        queue=queue,
        push=push,
        runai=owned_runai,
        kube=owned_kube,
        flights=flights,
        slack=slack,
        teams=teams,
        metrics_token=(
            settings.metrics.token.get_secret_value() if settings.metrics.token else None
        ),
        shutdown_grace_s=settings.queue.shutdown_grace_s,
        pages=page_routes(settings),
    )
    if settings.queue.embedded_worker if worker is None else worker:
        handlers: dict[str, Handler] = {"push": push.work}  # what a worker answers, per platform
        handlers.update({front.platform: front.work for front in runtime.front_ends})
        runtime.worker = Worker(
            queue,
            handlers,
            concurrency=concurrency,
            claim_idle_s=settings.queue.claim_idle_s,
            max_deliveries=settings.queue.max_deliveries,
        )
    return runtime
