"""Hosts a report's memory chart for Teams: the bot serves the PNG under a signed, expiring URL.

Teams shows a card's image by fetching its URL, and a bot has no upload service like Slack's
files v2, so the bot serves the chart itself: `publish` stores the PNG (Redis with a TTL,
so every replica can serve it; one process's memory without Redis) and returns
`{TEAMS_PUBLIC_URL}/teams/charts/{id}.png?exp=…&sig=…`, where `sig` is an HMAC-SHA256 of
the ID and expiry with a key derived from a secret (`derive_key`). The route answers only a
valid, unexpired signature: anything else is an empty 403 (bad or expired) or 404 (gone),
and nothing is read from the store before the signature checks out.

A chart is stored once however many answers show it: its ID is a digest of its bytes. A
Teams client fetches a card's image whenever it renders the card, in the thread's history
too, so a chart lives as long as the newest URL naming it, `ttl_s` (`TEAMS_CHART_TTL_S`)
after it was last published, and no longer: publishing it again extends its life, never
shortens it, so no URL outlives the chart it names. Without Redis, the process keeps
at most `MEMORY_MAX_CHARTS` charts and `MEMORY_MAX_BYTES` bytes, dropping the least
recently published first (their URLs then answer 404).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Protocol

import redis.asyncio as redis
import structlog
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from bot.render.drawing import draw_memory_chart
from diagnosis import Report

__all__ = [
    "CHART_PATH",
    "MAX_PNG_BYTES",
    "MEMORY_MAX_BYTES",
    "MEMORY_MAX_CHARTS",
    "ChartHost",
    "ChartStore",
    "MemoryChartStore",
    "RedisChartStore",
    "chart_id_of",
    "chart_routes",
    "derive_key",
]

CHART_PATH = "/teams/charts/{chart_id}.png"
#: Teams' limit for a card's image ("Format cards in Teams": less than 1 MB).
MAX_PNG_BYTES = 1_000_000
#: The most charts one process keeps without Redis (5-10 KB each)...
MEMORY_MAX_CHARTS = 500
#: ... and the most bytes.
MEMORY_MAX_BYTES = 16 * 1024 * 1024
_KEY_CONTEXT = b"runai-why/teams-chart-url/v1"
_ID = re.compile(r"^[A-Za-z0-9_-]{24}$")
_EXP = re.compile(r"^[0-9]{1,12}$")
_SIG = re.compile(r"^[A-Za-z0-9_-]{43}$")
_REDIS_PREFIX = "runai-why:chart:"
#: Keep a chart (base64) for ARGV[2] seconds: stored once, its life extended, never shortened.
_KEEP = """
if redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2], 'NX') then return 1 end
redis.call('EXPIRE', KEYS[1], ARGV[2], 'GT')
return 0
"""


def derive_key(secret: str) -> bytes:
    """The URL-signing key for `secret` (e.g. TEAMS_APP_PASSWORD): never the secret itself."""
    if not secret:
        raise ValueError("a chart URL key needs a non-empty secret")
    return hmac.new(secret.encode(), _KEY_CONTEXT, hashlib.sha256).digest()


def chart_id_of(png: bytes) -> str:
    """The ID of a chart: a digest of its bytes (144 bits of SHA-256, URL-safe)."""
    return base64.urlsafe_b64encode(hashlib.sha256(png).digest()[:18]).decode()


class ChartStore(Protocol):
    """Where published charts live until they expire."""

    async def put(self, chart_id: str, png: bytes, ttl_s: int) -> None:
        """Keep `png` under `chart_id` for `ttl_s` seconds from now, or longer if it was."""
        ...

    async def get(self, chart_id: str) -> bytes | None:
        """The PNG, or None when it expired or never was."""
        ...


class MemoryChartStore:
    """One process's charts (without REDIS_URL), capped; the least recently put go first."""

    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        *,
        max_charts: int = MEMORY_MAX_CHARTS,
        max_bytes: int = MEMORY_MAX_BYTES,
    ) -> None:
        if max_charts < 1 or max_bytes < MAX_PNG_BYTES:
            raise ValueError("the chart store must hold at least one chart of the largest size")
        self._clock = clock
        self._max_charts = max_charts
        self._max_bytes = max_bytes
        self._charts: OrderedDict[str, tuple[float, bytes]] = OrderedDict()
        self._bytes = 0

    def __len__(self) -> int:
        return len(self._charts)

    async def put(self, chart_id: str, png: bytes, ttl_s: int) -> None:
        """See `ChartStore.put`."""
        now = self._clock()
        expires = now + ttl_s
        kept = self._drop(chart_id)
        if kept is not None:
            expires = max(expires, kept[0])
        self._charts[chart_id] = (expires, png)
        self._bytes += len(png)
        while self._charts and self._over(now):
            self._drop(next(iter(self._charts)))

    async def get(self, chart_id: str) -> bytes | None:
        """See `ChartStore.get`."""
        entry = self._charts.get(chart_id)
        if entry is None:
            return None
        if entry[0] <= self._clock():
            self._drop(chart_id)
            return None
        return entry[1]

    def _over(self, now: float) -> bool:
        """Whether the oldest chart must go: over a cap, or expired."""
        if len(self._charts) > self._max_charts or self._bytes > self._max_bytes:
            return True
        return next(iter(self._charts.values()))[0] <= now

    def _drop(self, chart_id: str) -> tuple[float, bytes] | None:
        entry = self._charts.pop(chart_id, None)
        if entry is not None:
            self._bytes -= len(entry[1])
        return entry


class RedisChartStore:
    """Charts in Redis (with a TTL), base64 so any client (`decode_responses` or not) reads it."""

    def __init__(self, client: redis.Redis) -> None:
        self._redis = client
        self._keep = client.register_script(_KEEP)

    async def put(self, chart_id: str, png: bytes, ttl_s: int) -> None:
        """See `ChartStore.put`: one script, so the chart is written once, then only kept."""
        await self._keep(keys=[_REDIS_PREFIX + chart_id], args=[base64.b64encode(png), ttl_s])

    async def get(self, chart_id: str) -> bytes | None:
        """See `ChartStore.get`."""
        raw = await self._redis.get(_REDIS_PREFIX + chart_id)
        return base64.b64decode(raw) if raw else None


class ChartHost:
    """Publishes PNGs under signed URLs that expire with them, and checks those URLs."""

    def __init__(
        self,
        store: ChartStore,
        key: bytes,
        public_base_url: str,
        *,
        ttl_s: int,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if len(key) < 32:  # noqa: PLR2004 - the size of an HMAC-SHA256 key from derive_key
            raise ValueError("the chart URL key must be at least 32 bytes (use derive_key)")
        if ttl_s <= 0:
            raise ValueError("ttl_s must be positive")
        self.store = store
        self._key = key
        self._base = public_base_url.rstrip("/")
        self.ttl_s = ttl_s
        self._clock = clock

    def _sign(self, chart_id: str, exp: int) -> str:
        mac = hmac.new(self._key, f"{chart_id}.{exp}".encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(mac).rstrip(b"=").decode()

    def url(self, chart_id: str, exp: int) -> str:
        """The signed URL of `chart_id`, valid until `exp` (Unix seconds)."""
        path = CHART_PATH.format(chart_id=chart_id)
        return f"{self._base}{path}?exp={exp}&sig={self._sign(chart_id, exp)}"

    async def publish(self, png: bytes) -> str:
        """Keep `png` for `ttl_s` seconds (stored once by content) and return its signed URL.

        Raises:
            ValueError: not a PNG, or over Teams' image limit.
            redis.RedisError, OSError: the store failed.
        """
        if not png.startswith(b"\x89PNG\r\n\x1a\n") or len(png) > MAX_PNG_BYTES:
            raise ValueError("a chart must be a PNG under 1 MB")
        chart_id = chart_id_of(png)
        exp = int(self._clock()) + self.ttl_s
        await self.store.put(chart_id, png, self.ttl_s)
        return self.url(chart_id, exp)

    def allows(self, chart_id: str, exp: str, sig: str) -> bool:
        """Whether (`chart_id`, `exp`, `sig`) is a URL this host signed that has not expired."""
        if not (_ID.match(chart_id) and _EXP.match(exp) and _SIG.match(sig)):
            return False
        if not hmac.compare_digest(self._sign(chart_id, int(exp)), sig):
            return False
        return int(exp) > self._clock()

    def seconds_left(self, exp: str) -> int:
        """How long a URL expiring at `exp` stays valid (0 once expired)."""
        return max(0, min(int(exp) - int(self._clock()), self.ttl_s))

    async def publish_report(self, report: Report) -> str | None:
        """Draw the report's memory chart and publish it; None when there is none or it failed.

        A chart that cannot be drawn or stored is logged and left out (the card then shows
        the sparkline): the answer never waits on it or fails because of it.
        """
        if report.memory is None or report.workload is None:
            return None
        chart = await draw_memory_chart(report.memory, workload=report.workload.name)
        if chart is None:
            return None
        try:
            return await self.publish(chart.png)
        except (redis.RedisError, OSError, ValueError) as error:
            structlog.get_logger(__name__).warning(
                "teams_chart_publish_failed", error=type(error).__name__
            )
            return None


def chart_routes(host: ChartHost) -> list[Route]:
    """`GET /teams/charts/{id}.png?exp=…&sig=…` (and HEAD), for the app to mount."""

    async def serve(request: Request) -> Response:
        chart_id = str(request.path_params.get("chart_id", ""))
        exp, sig = request.query_params.get("exp", ""), request.query_params.get("sig", "")
        if not host.allows(chart_id, exp, sig):
            return Response(status_code=403)
        try:
            png = await host.store.get(chart_id)
        except (redis.RedisError, OSError) as error:
            structlog.get_logger(__name__).warning("teams_chart_read_failed", error=type(error).__name__)  # fmt: skip  # noqa: E501
            return Response(status_code=503)
        if png is None:
            return Response(status_code=404)
        headers = {
            "Cache-Control": f"private, max-age={host.seconds_left(exp)}",
            "X-Content-Type-Options": "nosniff",
        }
        return Response(png, media_type="image/png", headers=headers)

    return [Route(CHART_PATH, serve, methods=["GET"], name="teams_chart")]
