"""`runai-why worker` in a process of its own, for the tests that stop one mid-diagnosis."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import Mapping
from pathlib import Path

import redis.asyncio

from runai_sim.faults import FaultRule

__all__ = ["STALLED_EVIDENCE", "journaled", "worker_process"]

#: The checkout these tests belong to: its code runs in the worker, not the installed copy
#: (in a git worktree, the installed one is another checkout's).
CODE_UNDER_TEST = str(Path(__file__).resolve().parents[3])

#: The evidence a diagnosis reads once it has posted "Diagnosing…", held for a minute: a
#: worker reading a control plane with this fault is still diagnosing when it is stopped.
STALLED_EVIDENCE = FaultRule(
    path=r"/api/v1/workloads/[^/]+/(events|pods|history|metrics)", latency_ms=60_000
)


async def worker_process(
    platform: Mapping[str, str],
    runai_url: str,
    redis_url: str,
    *,
    metrics_port: int = 0,
    processes: int = 1,
    log: Path | None = None,
    claim_idle_s: float = 0.5,
) -> asyncio.subprocess.Process:
    """The worker, with `platform`'s settings (Slack's or Teams') and the tests' others.

    `/metrics` is served on 127.0.0.1:`metrics_port` (0, the default: not at all). Past one
    `processes`, the process is their supervisor. `log`: where its JSON logs go (else none).
    `claim_idle_s`: how long an item may go unrenewed before another worker takes it over;
    short, so that the kill tests' survivors take over at once.
    """
    env = {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": CODE_UNDER_TEST,
        **platform,
        "REDIS_URL": redis_url,
        "RUNAI_URL": runai_url,
        "RUNAI_CLIENT_ID": "runai-why-demo",
        "RUNAI_CLIENT_SECRET": "demo-secret",
        "RUNAI_RETRIES": "0",
        "QUEUE_CLAIM_IDLE_S": str(claim_idle_s),
        "DIAGNOSIS_DEADLINE_S": "120",
        "SHUTDOWN_GRACE_S": "0.2",
        "METRICS_PORT": str(metrics_port),
        "LOG_FORMAT": "json",
    }
    cli = Path(sys.executable).with_name("runai-why")
    with contextlib.ExitStack() as files:  # the child keeps its own copy of the log's handle
        stderr = files.enter_context(log.open("wb")) if log else asyncio.subprocess.DEVNULL
        return await asyncio.create_subprocess_exec(
            str(cli),
            "worker",
            "--host",
            "127.0.0.1",
            "--processes",
            str(processes),
            env=env,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=stderr,
        )


async def journaled(client: redis.asyncio.Redis, ref: str) -> None:
    """Wait until some item's journal holds `ref` as its first post (its placeholder)."""
    async with asyncio.timeout(10):
        while True:
            for key in await client.keys("{runai-why-work}:job:*"):
                if await client.hget(key, "post:0") == f"progress:{ref}":
                    return
            await asyncio.sleep(0.01)
