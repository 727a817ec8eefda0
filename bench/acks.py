"""200 simultaneous acks, timed by a client that is not the bottleneck (issue 25, item 6).

Each replica first serves 20 `help` commands (so each web process is warm, as in
production: its first request loads Bolt's listeners and checks the token), and its worker
processes have all started. The asks are signed slash commands about distinct workloads,
sent by `bench.rawload` in a process of its own over raw sockets, to a replica in each
layout: `recommended` (web processes that only verify, enqueue and acknowledge, one per
core, beside worker processes on the same cores); the same web processes alone (the worker
pods elsewhere, as `overlays/split-worker` deploys them); and `embedded` (one `serve` that
also diagnoses). For comparison, the burst is also sent by an httpx client in this
process, whose figure includes its own queueing (how the benchmark measured before issue 25).
"""

from __future__ import annotations

import asyncio
import contextlib

import httpx

from bench.driver import Ask, send_all, send_all_httpx
from bench.stats import Figure, Target, number, percentile
from bench.world import SECRET, World

__all__ = ["acks"]

ACK_P99_TARGET_S = 0.100
BURST = 200


async def raw_acks(world: World, url: str, asks: list[Ask]) -> list[float]:
    """Send `asks` at once to `url` from `bench.rawload`: the seconds of each 200."""
    await send_all({a.replica: url for a in asks}, SECRET, asks, world.slack)
    return [a.ack_s for a in asks if a.ack_s is not None and a.status == 200]  # noqa: PLR2004


async def _warm(world: World, url: str, tag: str, count: int = 20) -> None:
    """`help` on `count` connections: every web process has served a request, as in production.

    The first request a process serves loads what it serves with (Bolt's listeners, the
    token check): a steady-state figure leaves that out. `help` is answered privately, and
    gives the workers nothing to do.
    """
    warm = [Ask(tag, i, "U001", "help", "") for i in range(count)]
    await raw_acks(world, url, warm)


async def _burst(world: World, tag: str, layout: str, *, workers: bool = True) -> list[float]:
    """A fresh warm replica in `layout` (its worker processes stopped unless `workers`)."""
    from bench.scenarios import ask_for  # noqa: PLC0415 - one place for how asks look

    world.reset()
    [replica] = await world.serve(1, layout=layout)
    if not workers:
        for process in replica.others:
            process.terminate()
            process.wait(10)
    await _warm(world, replica.url, f"w{tag}")
    ids = world.scenario.workload_ids[:BURST]
    asks = [ask_for(world, tag, i, w, replica.name) for i, w in enumerate(ids)]
    return await raw_acks(world, replica.url, asks)


async def _echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Answer one request at once, whatever it is (the measuring tool's own floor)."""
    with contextlib.suppress(OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
        head = await reader.readuntil(b"\r\n\r\n")
        length = [
            line for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")
        ]
        await reader.readexactly(int(length[0].split(b":", 1)[1]) if length else 0)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        await writer.drain()
    writer.close()


async def tool_floor(world: World) -> list[float]:
    """The same burst against a server that answers at once: what the client itself adds."""
    from bench.scenarios import ask_for  # noqa: PLC0415 - one place for how asks look

    server = await asyncio.start_server(_echo, "127.0.0.1", 0, backlog=1024)
    async with server:
        url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"
        ids = world.scenario.workload_ids[:BURST]
        asks = [ask_for(world, "af", i, w, "echo") for i, w in enumerate(ids)]
        return await raw_acks(world, url, asks)


def _figures(timed: list[float]) -> str:
    return (
        f"p99 {number(percentile(timed, 99), 's')}, p50 {number(percentile(timed, 50), 's')}, "
        f"{len(timed)}/{BURST} acknowledged 200"
    )


async def acks(world: World) -> list[Target | Figure]:
    """The burst in the recommended layout, web processes alone, one `serve`, and by httpx."""
    from bench.scenarios import ask_for  # noqa: PLC0415 - one place for how asks look

    timed = await _burst(world, "ar", "recommended")
    rows: list[Target | Figure] = [
        Target(
            f"2. acks: {BURST} at once, p99 (recommended layout)",
            percentile(timed, 99),
            ACK_P99_TARGET_S,
            1.0,
            "s",
            f"raw sockets from a process of its own; {_figures(timed)}; web and worker "
            "processes on the same cores",
        )
    ]
    floor = await tool_floor(world)
    rows.append(
        Figure(
            "   the client's own floor",
            f"{_figures(floor)} from a server that answers at once",
        )
    )
    alone = await _burst(world, "aw", "recommended", workers=False)
    rows.append(
        Figure("   web processes alone (workers elsewhere)", f"{_figures(alone)}; as split pods")
    )
    embedded = await _burst(world, "ae", "embedded")
    rows.append(
        Figure(
            "   one `serve` with its embedded worker",
            f"{_figures(embedded)}; no target: small installs and the demo",
        )
    )
    world.reset()
    [replica] = await world.serve(1, layout="recommended")
    ids = world.scenario.workload_ids[:BURST]
    asks = [ask_for(world, "ah", i, w, replica.name) for i, w in enumerate(ids)]
    limits = httpx.Limits(max_connections=BURST, max_keepalive_connections=BURST)
    async with httpx.AsyncClient(timeout=30, limits=limits) as http:
        await send_all_httpx(http, {replica.name: replica.url}, SECRET, asks, world.slack)
    by_httpx = [a.ack_s for a in asks if a.ack_s is not None and a.status == 200]  # noqa: PLR2004
    rows.append(
        Figure(
            "   recommended, timed by the httpx client",
            f"p99 {number(percentile(by_httpx, 99), 's')} (cold processes; its own pool and "
            "parsing share the event loop with the replies it times)",
        )
    )
    return rows
