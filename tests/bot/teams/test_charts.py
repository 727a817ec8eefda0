"""The chart host: signed, expiring URLs served over HTTP, with Redis or in memory behind them."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
import redis.asyncio as redis
from starlette.applications import Starlette

from bot.durable.connect import connect_redis
from bot.render.chart import memory_chart
from bot.teams.charts import (
    MAX_PNG_BYTES,
    MEMORY_MAX_BYTES,
    MEMORY_MAX_CHARTS,
    ChartHost,
    ChartStore,
    MemoryChartStore,
    RedisChartStore,
    chart_id_of,
    chart_routes,
    derive_key,
)
from diagnosis import Outcome, Report, WorkloadRef
from tests.bot.teams.figures import MEMORY

BASE = "https://runai-why.example.com"
KEY = derive_key("app-password")
TTL = 600
WORKLOAD = WorkloadRef(id="w1", name="train-bert", project="nlp", cluster_id="c1", phase="Failed")
OOM = Report(outcome=Outcome.DIAGNOSED, workload=WORKLOAD, memory=MEMORY)


class Clock:
    """Wall-clock seconds that a test moves on."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


def png(size: int = 100, fill: bytes = b"\0") -> bytes:
    return b"\x89PNG\r\n\x1a\n" + fill * (size - 8)


def chart_of(url: str) -> str:
    return urlsplit(url).path.rsplit("/", 1)[1].removesuffix(".png")


def path_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}"


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def memory_host(clock: Clock) -> ChartHost:
    return ChartHost(MemoryChartStore(clock), KEY, BASE + "/", ttl_s=TTL, clock=clock)


async def client_for(host: ChartHost) -> httpx.AsyncClient:
    app = Starlette(routes=chart_routes(host))
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE)


@pytest.fixture
async def http(memory_host: ChartHost) -> AsyncIterator[httpx.AsyncClient]:
    async with await client_for(memory_host) as client:
        yield client


async def test_a_published_chart_is_served_at_its_signed_url(memory_host, http):
    body = png()
    url = await memory_host.publish(body)
    parts = urlsplit(url)
    assert url.startswith(f"{BASE}/teams/charts/")
    assert parts.path.endswith(".png")
    query = parse_qs(parts.query)
    assert set(query) == {"exp", "sig"}
    assert int(query["exp"][0]) == 1_800_000_000 + TTL
    answer = await http.get(path_of(url))
    assert answer.status_code == 200
    assert answer.content == body
    assert answer.headers["content-type"] == "image/png"
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert answer.headers["cache-control"] == f"private, max-age={TTL}"
    assert (await http.head(path_of(url))).status_code == 200


def _tampered(url: str) -> dict[str, str]:
    parts = urlsplit(url)
    chart_id = parts.path.rsplit("/", 1)[1].removesuffix(".png")
    query = {k: v[0] for k, v in parse_qs(parts.query).items()}
    other = "B" if chart_id[0] != "B" else "C"
    flipped = ("A" if query["sig"][0] != "A" else "B") + query["sig"][1:]
    return {
        "another ID": f"/teams/charts/{other}{chart_id[1:]}.png?{parts.query}",
        "a later expiry": f"{parts.path}?exp={int(query['exp']) + 1}&sig={query['sig']}",
        "another signature": f"{parts.path}?exp={query['exp']}&sig={flipped}",
        "no signature": f"{parts.path}?exp={query['exp']}",
        "no expiry": f"{parts.path}?sig={query['sig']}",
        "a malformed expiry": f"{parts.path}?exp=-1&sig={query['sig']}",
        "a malformed ID": f"/teams/charts/{chart_id}%20.png?{parts.query}",
    }


CASES = [
    "another ID",
    "a later expiry",
    "another signature",
    "no signature",
    "no expiry",
    "a malformed expiry",
    "a malformed ID",
]


@pytest.mark.parametrize("case", CASES)
async def test_anything_but_the_signed_url_is_an_empty_403(memory_host, http, case):
    url = await memory_host.publish(png())
    answer = await http.get(_tampered(url)[case])
    assert answer.status_code == 403
    assert answer.content == b""


async def test_an_expired_url_is_403_and_a_key_from_another_secret_signs_nothing(clock):
    store = MemoryChartStore(clock)
    host = ChartHost(store, KEY, BASE, ttl_s=TTL, clock=clock)
    other = ChartHost(store, derive_key("another secret"), BASE, ttl_s=TTL, clock=clock)
    url = await host.publish(png())
    async with await client_for(other) as client:
        assert (await client.get(path_of(url))).status_code == 403
    async with await client_for(host) as client:
        clock.now += TTL - 1
        assert (await client.get(path_of(url))).status_code == 200
        clock.now += 1
        answer = await client.get(path_of(url))
    assert answer.status_code == 403
    assert answer.content == b""


async def test_a_signed_url_whose_png_is_gone_is_an_empty_404(memory_host, http, clock):
    url = memory_host.url("A" * 24, int(clock.now) + 60)
    answer = await http.get(path_of(url))
    assert answer.status_code == 404
    assert answer.content == b""


async def test_charts_in_redis_expire_with_their_urls(redis_client: redis.Redis, clock):
    host = ChartHost(RedisChartStore(redis_client), KEY, BASE, ttl_s=TTL, clock=clock)
    body = png(5_000)
    url = await host.publish(body)
    [key] = await redis_client.keys("runai-why:chart:*")
    assert 0 < await redis_client.ttl(key) <= TTL
    stored = await redis_client.get(key)
    assert isinstance(stored, str)
    assert base64.b64decode(stored) == body
    async with await client_for(host) as client:
        assert (await client.get(path_of(url))).content == body
        await redis_client.delete(key)
        assert (await client.get(path_of(url))).status_code == 404


async def test_redis_down_is_an_empty_503_and_publishing_raises(clock):
    # Nothing listens on port 1 of loopback: every command fails to connect.
    down = connect_redis("redis://127.0.0.1:1/0")
    host = ChartHost(RedisChartStore(down), KEY, BASE, ttl_s=TTL, clock=clock)
    try:
        with pytest.raises(redis.ConnectionError):
            await host.publish(png())
        assert await host.publish_report(OOM) is None  # logged, left out
        async with await client_for(host) as client:
            answer = await client.get(path_of(host.url("A" * 24, int(clock.now) + 60)))
    finally:
        await down.aclose()
    assert answer.status_code == 503
    assert answer.content == b""


async def test_a_reports_chart_is_drawn_and_published(memory_host, http):
    url = await memory_host.publish_report(OOM)
    assert url is not None
    answer = await http.get(path_of(url))
    chart = memory_chart(MEMORY, workload="train-bert")
    assert chart is not None
    assert answer.content == chart.png
    assert await memory_host.publish_report(OOM.model_copy(update={"memory": None})) is None
    assert await memory_host.publish_report(OOM.model_copy(update={"workload": None})) is None
    no_series = MEMORY.model_copy(update={"samples": ()})
    assert await memory_host.publish_report(OOM.model_copy(update={"memory": no_series})) is None


@pytest.mark.parametrize(
    "body", [b"GIF89a not a png", png(MAX_PNG_BYTES + 1)], ids=["not a PNG", "over 1 MB"]
)
async def test_only_pngs_teams_accepts_are_published(memory_host, body):
    with pytest.raises(ValueError, match="PNG under 1 MB"):
        await memory_host.publish(body)


def test_the_key_is_derived_never_the_secret_and_must_be_strong():
    assert derive_key("s") != derive_key("t")
    assert derive_key("s") != b"s"
    assert len(derive_key("s")) == 32
    with pytest.raises(ValueError, match="non-empty secret"):
        derive_key("")
    with pytest.raises(ValueError, match="at least 32 bytes"):
        ChartHost(MemoryChartStore(), b"short", BASE, ttl_s=TTL)
    with pytest.raises(ValueError, match="positive"):
        ChartHost(MemoryChartStore(), KEY, BASE, ttl_s=0)


async def test_the_memory_store_forgets_expired_charts(clock):
    store: ChartStore = MemoryChartStore(clock)
    await store.put("a", png(), 10)
    clock.now += 11
    assert await store.get("a") is None
    await store.put("b", png(), 10)  # and drops them on the next put
    assert await store.get("b") == png()


async def test_the_memory_store_drops_what_expired_when_it_is_read(clock):
    store = MemoryChartStore(clock)
    await store.put("a", png(), 10)
    clock.now += 10
    assert await store.get("a") is None
    assert len(store) == 0


async def test_a_chart_is_stored_once_and_lives_as_long_as_its_newest_url(memory_host, clock):
    first = await memory_host.publish(png())
    clock.now += 100
    second = await memory_host.publish(png())  # the same chart, in a later answer
    assert chart_of(first) == chart_of(second) == chart_id_of(png())
    assert len(memory_host.store) == 1
    assert chart_of(await memory_host.publish(png(fill=b"\1"))) != chart_of(first)
    async with await client_for(memory_host) as client:
        clock.now += TTL - 100  # the first URL has expired; the chart lives for the second
        assert (await client.get(path_of(first))).status_code == 403
        assert (await client.get(path_of(second))).content == png()
        clock.now += 100  # and goes with the second
        assert (await client.get(path_of(second))).status_code == 403
        assert await memory_host.store.get(chart_of(second)) is None


async def test_a_chart_in_redis_is_written_once_and_its_life_only_extended(
    redis_client: redis.Redis, clock
):
    host = ChartHost(RedisChartStore(redis_client), KEY, BASE, ttl_s=TTL, clock=clock)
    url = await host.publish(png(5_000))
    [key] = await redis_client.keys("runai-why:chart:*")
    assert isinstance(key, str)
    assert key.endswith(chart_of(url))
    await redis_client.expire(key, 100)  # published a while ago
    assert chart_of(await host.publish(png(5_000))) == chart_of(url)
    assert 100 < await redis_client.ttl(key) <= TTL  # extended for the new URL
    await redis_client.expire(key, 3 * TTL)  # a longer life (TEAMS_CHART_TTL_S was longer)
    await host.publish(png(5_000))
    assert await redis_client.ttl(key) > TTL  # never shortened
    assert await redis_client.keys("runai-why:chart:*") == [key]


async def test_the_memory_store_keeps_at_most_its_count_dropping_the_oldest_first(clock):
    store = MemoryChartStore(clock, max_charts=3)
    for name in "abc":
        await store.put(name, png(), TTL)
    await store.put("a", png(), TTL)  # published again: now the newest
    await store.put("d", png(), TTL)
    assert [await store.get(n) is not None for n in "abcd"] == [True, False, True, True]
    assert len(store) == 3


async def test_the_memory_store_keeps_at_most_its_bytes(clock):
    store = MemoryChartStore(clock, max_bytes=MAX_PNG_BYTES)
    for name in "abc":
        await store.put(name, png(400_000), TTL)
    assert [await store.get(n) is not None for n in "abc"] == [False, True, True]


async def test_the_default_memory_store_is_capped(clock):
    store = MemoryChartStore(clock)
    host = ChartHost(store, KEY, BASE, ttl_s=TTL, clock=clock)
    for i in range(MEMORY_MAX_CHARTS + 5):
        await host.publish(png(fill=i.to_bytes(2, "big")))
    assert len(store) == MEMORY_MAX_CHARTS
    assert MEMORY_MAX_CHARTS * 31_000 <= MEMORY_MAX_BYTES  # the count binds for typical charts


@pytest.mark.parametrize(
    "caps", [{"max_charts": 0}, {"max_bytes": MAX_PNG_BYTES - 1}], ids=["no-chart", "too-small"]
)
def test_a_memory_store_holds_at_least_one_chart_of_the_largest_size(caps):
    with pytest.raises(ValueError, match="at least one chart"):
        MemoryChartStore(**caps)
