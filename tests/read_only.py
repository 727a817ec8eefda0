"""The suite's read-only audit: every request our clients send to a simulator must be a read.

`ReadOnlyAudit` subscribes to `Simulator.observe` for one test, so it sees every simulator
that test creates (over sockets, `httpx.ASGITransport` or a server thread) without knowing
about any of them. At the end of the test, each request our clients sent must be read-only,
or the test fails naming the requests:

* to the simulated Kubernetes API (`/k8s/<cluster>/...`): GET only, with no exception;
* to the simulated Run:ai API: GET, or the POST of a token request (`TOKEN_PATHS`).

"Ours" means a User-Agent starting `runai-why` (both `RunaiClient` and `KubeClient` send it)
or no User-Agent at all: the Run:ai token request is built outside the client's defaults and
carries none, and counting it keeps a future request built the same way from slipping past.
A test's own probes (httpx's `python-httpx/...`, e.g. checking that the simulator answers
405) are not audited.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest

from runai_sim.app import TOKEN_PATHS, RecordedRequest, Simulator
from runai_sim.kube import is_kube_path

__all__ = ["OUR_USER_AGENT", "ReadOnlyAudit", "is_ours", "violation"]

OUR_USER_AGENT = "runai-why"


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


class ReadOnlyAudit:
    """What every simulator recorded while the audit was open; `check()` fails on a write."""

    def __init__(self) -> None:
        self._lock = threading.Lock()  # simulators served from a thread record from it
        self._seen: list[tuple[Simulator, RecordedRequest]] = []
        self._exempt: list[Simulator] = []
        self._close: Callable[[], None] | None = None

    def open(self) -> None:
        """Start observing every simulator."""
        self._close = Simulator.observe(self._record)

    def close(self) -> None:
        """Stop observing (idempotent)."""
        if self._close is not None:
            self._close()
            self._close = None

    def _record(self, simulator: Simulator, request: RecordedRequest) -> None:
        with self._lock:
            self._seen.append((simulator, request))

    def exempt(self, simulator: Simulator) -> None:
        """Leave `simulator` out of `check()` (for tests that break the rule on purpose)."""
        self._exempt.append(simulator)

    def violations(self, simulators: list[Simulator] | None = None) -> tuple[int, list[str]]:
        """(requests of ours audited, descriptions of those that were not read-only).

        Covers `simulators` when given, else every simulator seen that is not exempt.
        """
        with self._lock:
            seen = list(self._seen)
        audited, bad = 0, []
        for simulator, request in seen:
            chosen = (
                any(simulator is s for s in simulators)
                if simulators is not None
                else not any(simulator is s for s in self._exempt)
            )
            if not chosen or not is_ours(request):
                continue
            audited += 1
            if (problem := violation(request)) is not None:
                bad.append(problem)
        return audited, bad

    def check(self) -> int:
        """Fail the current test on any write; returns how many requests were audited."""
        audited, bad = self.violations()
        if bad:
            pytest.fail(f"READ-ONLY VIOLATION: {sorted(set(bad))}", pytrace=False)
        return audited
