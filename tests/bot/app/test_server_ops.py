"""`runai-why serve` under load and misconfiguration: the Redis settings, /readyz, METRICS_PORT."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest

from bot.app.runtime import Runtime, build_runtime
from bot.app.server import create_asgi_app
from bot.config import ConfigError, Settings
from bot.conversation.messages import STORE_BUSY, STORE_BUSY_RETRYING
from bot.durable.connect import DEFAULT_MAX_CONNECTIONS, DEFAULT_POOL_TIMEOUT_S
from bot.ops.metrics_server import start_metrics_server
from runai_sim.server import serve_asgi
from tests.bot.slack.fake_slack import BOT_USER_ID, FakeSlack
from tests.bot.slack.harness import SECRET, _settings
from tests.bot.slack.signing import (
    app_mention_event,
    event_body,
    signed_headers,
    slash_command_body,
)

pytestmark = pytest.mark.e2e

UNUSED_RUNAI = "http://127.0.0.1:9"  # never called: these requests end before any diagnosis


def test_the_redis_pool_defaults_wait_rather_than_fail():
    settings = Settings(_env_file=None)
    assert settings.redis.max_connections == DEFAULT_MAX_CONNECTIONS == 64
    assert settings.redis.pool_timeout_s == DEFAULT_POOL_TIMEOUT_S == 10.0
    assert settings.metrics.port == 9464
    assert settings.metrics.token is None


def test_a_malformed_redis_url_stops_start_up_with_a_clear_message(fake_slack: FakeSlack):
    settings = _settings(fake_slack, UNUSED_RUNAI, "redis+sentinel://s1:26379")
    with pytest.raises(ConfigError, match="redis\\+sentinel://host1:26379,host2:26379"):
        build_runtime(settings)


@asynccontextmanager
async def _serving(settings: Settings) -> AsyncIterator[tuple[Runtime, str, httpx.AsyncClient]]:
    runtime = build_runtime(settings)
    async with (
        serve_asgi(create_asgi_app(runtime), lifespan="on") as url,
        httpx.AsyncClient(timeout=10) as http,
    ):
        yield runtime, url, http


async def _hold_all(runtime: Runtime, count: int) -> list[Any]:
    assert runtime.redis is not None
    pool = runtime.redis.connection_pool
    return [await pool.get_connection() for _ in range(count)]


async def test_a_full_pool_is_busy_not_unreachable_in_readyz_and_to_the_asker(
    fake_slack: FakeSlack, redis_url: str
):
    # The web side alone: an embedded worker's blocking read would hold the one connection.
    settings = _settings(
        fake_slack,
        UNUSED_RUNAI,
        redis_url,
        redis_max_connections=1,
        redis_pool_timeout_s=0.2,
        embedded_worker=False,
    )
    async with _serving(settings) as (runtime, url, http):
        ready = await http.get(f"{url}/readyz")
        assert (ready.status_code, ready.json()["redis"]) == (200, "ok")
        held = await _hold_all(runtime, 1)
        ready = await http.get(f"{url}/readyz")
        # Overloaded, not down: still in rotation, and the body says why requests may wait.
        assert (ready.status_code, ready.json()["status"], ready.json()["redis"]) == (
            200,
            "ready",
            "busy",
        )
        mention = app_mention_event(
            f"<@{BOT_USER_ID}> help", user="U1", channel="C1", ts="1700000700.000100"
        )
        body = event_body(mention)
        sent = await http.post(
            f"{url}/slack/events", content=body, headers=signed_headers(SECRET, body)
        )
        # Not taken (Slack sends it again: nothing lost), and the asker hears why: busy, not
        # "I cannot reach my state store".
        assert sent.status_code == 500
        [told] = await fake_slack.wait_for_async("chat.postEphemeral")
        assert told.text == STORE_BUSY_RETRYING
        command = slash_command_body(
            "help", user="U1", channel="C1", response_url=fake_slack.response_url()
        )
        acked = await http.post(
            f"{url}/slack/events", content=command, headers=signed_headers(SECRET, command)
        )
        assert acked.status_code == 200
        assert STORE_BUSY in acked.text
        assert runtime.redis is not None
        for connection in held:
            await runtime.redis.connection_pool.release(connection)


async def test_without_redis_readyz_says_there_is_none(fake_slack: FakeSlack):
    async with _serving(_settings(fake_slack, UNUSED_RUNAI, None)) as (_, url, http):
        ready = await http.get(f"{url}/readyz")
    assert (ready.status_code, ready.json()["status"], ready.json()["redis"]) == (
        200,
        "ready",
        "off",
    )


async def test_metrics_port_serves_the_registry_alone():
    assert start_metrics_server(0, "127.0.0.1") is None
    assert start_metrics_server(None, "127.0.0.1") is None
    server = start_metrics_server(_free_port(), "127.0.0.1")
    assert server is not None
    try:
        async with httpx.AsyncClient() as http:
            response = await http.get(f"http://127.0.0.1:{server.server_port}/metrics")
        assert response.status_code == 200
        assert "# TYPE runai_why_stage_seconds histogram" in response.text
        assert "python_gc" not in response.text  # the bot's registry only
    finally:
        server.shutdown()
        server.server_close()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_metrics_port_in_use_stops_the_start_with_a_clear_message():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = int(taken.getsockname()[1])
        with pytest.raises(ConfigError, match=rf"cannot serve /metrics on 127.0.0.1:{port}.*"):
            start_metrics_server(port, "127.0.0.1")
