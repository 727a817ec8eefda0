"""Where `serve` spends its CPU per request: the ASGI app in-process under cProfile.

The same app `runai-why serve` runs (`build_runtime` + `create_asgi_app`), reached through
`httpx.ASGITransport`, against the same simulator, fake Slack and Redis. Only this thread
is profiled, so the fake Slack's threads and the simulator's process are not counted.
"""

from __future__ import annotations

import cProfile
import pstats
import time
from collections import defaultdict
from pathlib import Path

import httpx
from pydantic import SecretStr

from bench.chart import chart_row
from bench.driver import send_all_httpx, wait_until
from bench.stats import Figure, number
from bench.world import SECRET, World
from bot.app.runtime import build_runtime
from bot.app.server import create_asgi_app
from bot.config import Settings
from bot.ops.logging import configure_logging

__all__ = ["profile"]

_PACKAGES = (
    "/bot/", "/diagnosis/", "slack_bolt", "slack_sdk", "aiohttp", "httpx", "httpcore",
    "pydantic", "structlog", "redis", "PIL", "json", "asyncio", "starlette",
    "logging", "ssl", "re/", "yaml",
)  # fmt: skip


def _package(filename: str) -> str:
    for name in _PACKAGES:
        if name in filename:
            return name.strip("/")
    if filename == "~":
        return "builtins"
    return "other" if filename.startswith("/") else filename


def _settings(world: World) -> Settings:
    env = world._env(0, {})  # noqa: SLF001 - the same settings the replicas get
    return Settings(
        _env_file=None,
        slack_bot_token=SecretStr(env["SLACK_BOT_TOKEN"]),
        slack_signing_secret=SecretStr(SECRET),
        slack_api_url=env["SLACK_API_URL"],
        redis_url=SecretStr(env["REDIS_URL"]),
        runai_url=env["RUNAI_URL"],
        runai_client_id=env["RUNAI_CLIENT_ID"],
        runai_client_secret=SecretStr(env["RUNAI_CLIENT_SECRET"]),
        kube_clusters=env["KUBE_CLUSTERS"],
        log_level="INFO",
        log_format="json",
    )


async def profile(world: World, asks_count: int = 20, top: int = 12) -> tuple[list[Figure], str]:
    """Profile `asks_count` distinct asks (after one warm-up); rows and the top functions."""
    from bench.scenarios import ask_for  # noqa: PLC0415 - one place for how asks look

    world.reset()
    log = (world.folder / "profile.log").open("w", encoding="utf-8")
    configure_logging("INFO", "json", stream=log)  # as `serve` logs, into a file
    runtime = build_runtime(_settings(world))
    app = create_asgi_app(runtime)
    if runtime.worker is not None:  # ASGITransport runs no lifespan, which would start it
        runtime.worker.start()
    ids = world.scenario.workload_ids[-(asks_count + 1) :]
    asks = [ask_for(world, "pr", i, w, "app") for i, w in enumerate(ids)]
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://bench.invalid") as http:
        urls = {"app": "http://bench.invalid"}
        await send_all_httpx(http, urls, SECRET, asks[:1], world.slack)  # warm-up: token, clusters
        await wait_until(world.slack, asks[:1], timeout_s=30, quiet_s=10)
        # CPU time of this thread only: the fake Slack's threads are not the bot's.
        profiler = cProfile.Profile(time.thread_time)
        cpu = time.thread_time()
        profiler.enable()
        await send_all_httpx(http, urls, SECRET, asks[1:], world.slack)
        found = await wait_until(world.slack, asks[1:], timeout_s=45, quiet_s=15)
        profiler.disable()
        cpu = time.thread_time() - cpu
    await runtime.aclose()  # the log file stays open: unfinished asks may still log
    answered = sum(1 for a in asks[1:] if found[a.key].answered_at is not None)
    profiler.dump_stats(world.folder / "serve.prof")  # python -m pstats <folder>/serve.prof
    rows, text = _report(profiler, answered, cpu, top)
    rows.insert(1, Figure("profile: memory chart per answer (worker thread)", await chart_row()))
    return rows, text


def _report(
    profiler: cProfile.Profile, answered: int, cpu: float, top: int
) -> tuple[list[Figure], str]:
    stats = pstats.Stats(profiler)
    raw = stats.stats  # type: ignore[attr-defined]
    by_package: dict[str, float] = defaultdict(float)
    functions = []
    for (filename, line, name), (_, _, tottime, cumtime, _) in raw.items():
        by_package[_package(filename)] += tottime
        functions.append((tottime, cumtime, f"{Path(filename).name}:{line} {name}"))
    per = 1000 / answered if answered else float("nan")
    ranked = sorted(by_package.items(), key=lambda kv: -kv[1])[:8]
    rows = [
        Figure(
            "profile: CPU per request in-process",
            f"{number(cpu * per, 'ms')} over {answered} asks (this thread's CPU time: the "
            "app, its clients and the load driver; not the fake Slack's threads)",
        ),
        Figure(
            "profile: own time by package, per request",
            ", ".join(f"{name} {t * per:.1f} ms" for name, t in ranked),
        ),
    ]
    lines = [f"top {top} functions by own CPU time (ms per request; cumulative in brackets):"]
    for tottime, cumtime, where in sorted(functions, reverse=True)[:top]:
        lines.append(f"  {tottime * per:6.2f} ({cumtime * per:6.2f})  {where}")
    lines.append(f"top {top} of bot/ and diagnosis/ by cumulative CPU time (ms per request):")
    ours = [(c, w) for _, c, w, f in _ours(raw)]
    for cumtime, where in sorted(ours, reverse=True)[:top]:
        lines.append(f"  {cumtime * per:6.2f}  {where}")
    return rows, "\n".join(lines)


def _ours(
    raw: dict[tuple[str, int, str], tuple[int, int, float, float, object]],
) -> list[tuple[float, float, str, str]]:
    """(own, cumulative, where, file) of every profiled function in bot/ or diagnosis/."""
    return [
        (tottime, cumtime, f"{_short(filename)}:{line} {name}", filename)
        for (filename, line, name), (_, _, tottime, cumtime, _) in raw.items()
        if "/bot/" in filename or "/diagnosis/" in filename
    ]


def _short(filename: str) -> str:
    for root in ("/bot/", "/diagnosis/"):
        if root in filename:
            return root.strip("/") + "/" + filename.split(root, 1)[1]
    return Path(filename).name
