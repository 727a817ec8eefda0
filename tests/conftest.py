"""Suite-wide guards: every request the client sends to a simulator is audited as read-only.

Every `Simulator` created during the run is registered; when the session ends, each request
that our client sent (User-Agent `runai-why`) must be a GET or the token POST. A violation
fails the whole run, whichever test caused it.
"""

from __future__ import annotations

import functools
from typing import Any

import pytest

from runai_sim.app import Simulator

_SIMULATORS: list[Simulator] = []
_TOKEN_PATHS = frozenset({"/api/v1/token"})


def pytest_configure(config: pytest.Config) -> None:
    original = Simulator.__init__

    @functools.wraps(original)
    def registering_init(self: Simulator, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        _SIMULATORS.append(self)

    Simulator.__init__ = registering_init  # type: ignore[method-assign]


def read_only_violations() -> tuple[int, list[str]]:
    """(requests audited, descriptions of those that were not read-only)."""
    audited, bad = 0, []
    for simulator in _SIMULATORS:
        for request in simulator.requests:
            if not request.headers.get("user-agent", "").startswith("runai-why"):
                continue  # a test's own probe, e.g. checking that the simulator answers 405
            audited += 1
            if request.method != "GET" and not (
                request.method == "POST" and request.path in _TOKEN_PATHS
            ):
                bad.append(f"{request.method} {request.path}")
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
