"""The upstreams a front end talks to: a real control plane from settings, or the simulator.

`simulated(scenario)` serves a scenario in-process on a loopback port and points both the
Run:ai client and (when the scenario has a `kubernetes` key) the Kubernetes clients at it,
so `diagnose --scenario`, the demo, the benchmark and the tests run the real clients.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from bot.settings import Settings
from diagnosis import KubeAccess, KubeDirectory, KubeTarget, RunaiClient, RunaiConfig
from runai_sim.app import Simulator
from runai_sim.kube import kube_base_url
from runai_sim.scenario import Scenario
from runai_sim.server import serve

__all__ = ["Backends", "from_settings", "simulated"]


@dataclass
class Backends:
    """A Run:ai client, the per-cluster Kubernetes clients (if any), and the simulator (if any)."""

    runai: RunaiClient
    kube: KubeDirectory | None = None
    simulator: Simulator | None = None


@asynccontextmanager
async def simulated(scenario: Scenario, *, retries: int = 3) -> AsyncIterator[Backends]:
    """Serve `scenario` and yield clients pointed at it; everything is closed on exit."""
    simulator = Simulator(scenario)
    async with serve(simulator) as base_url:
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
            targets = {
                uuid: KubeTarget.for_url(
                    kube_base_url(base_url, uuid), simulator.kube_token, retries=0
                )
                for uuid in simulator.kube_clusters
            }
            kube = KubeDirectory(KubeAccess(targets))
        async with RunaiClient(config) as runai:
            try:
                yield Backends(runai, kube, simulator)
            finally:
                if kube is not None:
                    await kube.aclose()


@asynccontextmanager
async def from_settings(settings: Settings) -> AsyncIterator[Backends]:
    """Clients for the real control plane and the configured Kubernetes clusters."""
    access = KubeAccess.parse(settings.kube_clusters, env=os.environ)
    kube = KubeDirectory(access) if len(access) else None
    async with RunaiClient(settings.runai_config()) as runai:
        try:
            yield Backends(runai, kube)
        finally:
            if kube is not None:
                await kube.aclose()
