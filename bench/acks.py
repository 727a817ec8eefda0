"""200 simultaneous acks, timed by a client that is not the bottleneck (issue 25, item 6).

Each replica first serves 20 `help` commands (so each web process is warm, as in
production: its first request loads Bolt's listeners and checks the token), and its worker
processes have all started. The asks are signed slash commands about distinct workloads,
sent by `bench.rawload` in a process of its own over raw sockets, to a replica in each
layout: `recommended` (web processes that only verify, enqueue and acknowledge, one per
core, beside worker processes) and `embedded` (one `serve` that also diagnoses). For
comparison, the same burst is also sent by the httpx client the other scenarios use, whose
figure includes its own queueing.
"""

from __future__ import annotations

import asyncio
import base64
import json
import sys
from urllib.parse import urlsplit

from bench.driver import Ask, send_all
from bench.stats import Figure, Target, number, percentile
from bench.world import SECRET, World
from tests.bot.slack.signing import signed_headers, slash_command_body

__all__ = ["acks"]

ACK_P99_TARGET_S = 0.100


def _request(url: str, ask: Ask, response_url: str) -> bytes:
    body = slash_command_body(
        ask.text,
        user=ask.user,
        channel=ask.channel,
        response_url=response_url,
        trigger_id=f"bench-{ask.key}",
    )
    host = urlsplit(url).netloc
    headers = {**signed_headers(SECRET, body), "Content-Length": str(len(body))}
    head = f"POST /slack/events HTTP/1.1\r\nHost: {host}\r\n"
    head += "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    return (head + "Connection: close\r\n\r\n").encode() + body


async def raw_acks(world: World, url: str, asks: list[Ask]) -> tuple[list[float], int]:
    """Send `asks` at once from `bench.rawload`; (ack seconds of the 200s, how many were 200)."""
    parts = urlsplit(url)
    requests = [_request(url, a, world.slack.response_url(a.key)) for a in asks]
    spec = {
        "host": parts.hostname,
        "port": parts.port,
        "requests": [base64.b64encode(r).decode() for r in requests],
    }
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bench.rawload",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    out, _ = await asyncio.wait_for(child.communicate(json.dumps(spec).encode()), 120)
    result = json.loads(out)
    ok = [a for a, s in zip(result["acks"], result["statuses"], strict=True) if s == 200]  # noqa: PLR2004
    return [float(a) for a in ok], len(ok)


async def _warm(world: World, url: str, tag: str, count: int = 20) -> None:
    """`help` on `count` connections: every web process has served a request, as in production.

    The first request a process serves loads what it serves with (Bolt's listeners, the
    token check): a steady-state figure leaves that out. `help` is answered privately, and
    gives the workers nothing to do.
    """
    warm = [Ask(tag, i, "U001", "help", "") for i in range(count)]
    await raw_acks(world, url, warm)


async def acks(world: World, count: int = 200) -> list[Target | Figure]:
    """The burst in both layouts by the raw client, and in the recommended one by httpx."""
    from bench.scenarios import _client, ask_for  # noqa: PLC0415 - one place for how asks look

    rows: list[Target | Figure] = []
    ids = world.scenario.workload_ids[:count]
    for layout in ("recommended", "embedded"):
        world.reset()
        [replica] = await world.serve(1, layout=layout)
        await _warm(world, replica.url, f"w{layout[0]}")
        asks = [ask_for(world, f"a{layout[0]}", i, w, replica.name) for i, w in enumerate(ids)]
        timed, ok = await raw_acks(world, replica.url, asks)
        detail = f"raw sockets, separate process; {ok}/{count} acknowledged 200, p50 "
        detail += number(percentile(timed, 50), "s")
        if layout == "recommended":
            rows.append(
                Target(
                    "acks: 200 at once, p99 (recommended layout)",
                    percentile(timed, 99),
                    ACK_P99_TARGET_S,
                    1.0,
                    "s",
                    detail,
                )
            )
        else:
            rows.append(
                Figure(
                    "   the same burst, one embedded `serve`",
                    f"p99 {number(percentile(timed, 99), 's')} ({detail}; no target: small "
                    "installs and the demo)",
                )
            )
        if layout == "recommended":
            world.reset()
            [replica] = await world.serve(1, layout=layout)
            asks = [ask_for(world, "ah", i, w, replica.name) for i, w in enumerate(ids)]
            async with _client(count) as http:
                await send_all(http, {replica.name: replica.url}, SECRET, asks, world.slack)
            by_httpx = [a.ack_s for a in asks if a.ack_s is not None and a.status == 200]  # noqa: PLR2004
            rows.append(
                Figure(
                    "   the same burst timed by the httpx client",
                    f"p99 {number(percentile(by_httpx, 99), 's')} (its own pool and parsing "
                    "share the event loop with the replies it times)",
                )
            )
    return rows
