"""The upstreams a command talks to: a real control plane from settings, or the simulator.

`simulated(scenario)` serves a scenario in-process on a loopback port and points both the
Run:ai client and (when the scenario has a `kubernetes` key) the Kubernetes clients at it,
so `diagnose --scenario`, the demo, the benchmark and the tests run the real clients.
With `transport="asgi"` the same clients reach the simulator through `httpx.ASGITransport`
instead of a socket: everything above the transport (auth, read-only guard, retries,
parsing) is unchanged, and no server starts (the tests' default; timeouts are not enforced
there, so tests of timeouts and of the wire itself keep `"socket"`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager, nullcontext
from dataclasses import dataclass
from typing import Literal

import httpx

from bot.app.clients import kube_directory, runai_client
from bot.config import Settings
from diagnosis import KubeAccess, KubeDirectory, KubeTarget, RunaiClient, RunaiConfig
from runai_sim.app import Simulator
from runai_sim.kube import kube_base_url
from runai_sim.scenario import Scenario
from runai_sim.server import serve

__all__ = ["ASGI_BASE_URL", "KUBE_RETRIES", "Backends", "from_settings", "simulated"]

#: Retries of a Kubernetes call in production (the access entry's default), used here too.
KUBE_RETRIES: int = KubeTarget.model_fields["retries"].default


@dataclass
class Backends:
    """A Run:ai client, the per-cluster Kubernetes clients (if any), and the simulator (if any)."""

    runai: RunaiClient
    kube: KubeDirectory | None = None
    simulator: Simulator | None = None


#: The base URL clients use for a simulator reached through `httpx.ASGITransport`.
ASGI_BASE_URL = "http://runai-sim.invalid"


@asynccontextmanager
async def simulated(
    scenario: Scenario,
    *,
    retries: int = 3,
    transport: Literal["socket", "asgi"] = "socket",
) -> AsyncIterator[Backends]:
    """Serve `scenario` and yield clients pointed at it; everything is closed on exit."""
    simulator = Simulator(scenario)
    asgi = httpx.ASGITransport(app=simulator.app) if transport == "asgi" else None
    server: AbstractAsyncContextManager[str] = (
        nullcontext(ASGI_BASE_URL) if asgi is not None else serve(simulator)
    )
    async with server as base_url:
        creds = scenario.credentials
        config = RunaiConfig(
            url=base_url,
            client_id=creds.client_id,
            client_secret=creds.client_secret,
            retries=retries,
            backoff_s=0.05,
            max_backoff_s=0.2,
        )
        kube = None
        if simulator.kube_token is not None:
            # The production retry policy (attempts and retried statuses); shorter sleeps only.
            targets = {
                uuid: KubeTarget.for_url(
                    kube_base_url(base_url, uuid), simulator.kube_token, retries=KUBE_RETRIES
                ).model_copy(update={"backoff_s": 0.05, "max_backoff_s": 0.2})
                for uuid in simulator.kube_clusters
            }
            kube = KubeDirectory(KubeAccess(targets), transport=asgi)
        async with RunaiClient(config, transport=asgi) as runai:
            try:
                yield Backends(runai, kube, simulator)
            finally:
                if kube is not None:
                    await kube.aclose()


@asynccontextmanager
async def from_settings(settings: Settings) -> AsyncIterator[Backends]:
    """Clients for the real control plane and the configured Kubernetes clusters.

    The same clients `serve` builds (`bot.app.clients`): counted, and bounded per process.
    """
    kube = kube_directory(settings)
    async with runai_client(settings, None) as runai:
        try:
            yield Backends(runai, kube)
        finally:
            if kube is not None:
                await kube.aclose()
