"""A program in a real terminal (a pseudo-terminal it controls), for the demo's keys and Ctrl-C."""

from __future__ import annotations

import contextlib
import os
import pty
import select
import signal
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Terminal", "read_until", "terminal"]


def read_until(fd: int, marker: bytes, timeout: float, seen: bytes = b"", start: int = 0) -> bytes:
    """`seen` and what `fd` printed until `marker` appeared after `start`; fails after `timeout` s."""
    deadline = time.monotonic() + timeout
    while marker not in seen[start:]:
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"{marker!r} not seen; got {seen[-800:]!r}")
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # a pseudo-terminal whose program ended reads as EIO
                chunk = b""
            if not chunk:
                raise AssertionError(f"output ended before {marker!r}: {seen[-800:]!r}")
            seen += chunk
    return seen


@dataclass
class Terminal:
    """The terminal's side of a program: what it printed, keys to type, how it ended."""

    pid: int
    fd: int
    output: bytes = b""
    status: int | None = None
    _cursor: int = field(default=0, repr=False)

    def expect(self, marker: bytes, timeout: float = 60) -> None:
        """Wait until the program prints `marker` (after what earlier calls waited for)."""
        self.output = read_until(self.fd, marker, timeout, self.output, self._cursor)
        self._cursor = self.output.index(marker, self._cursor) + len(marker)

    def type(self, keys: bytes) -> None:
        os.write(self.fd, keys)

    def wait(self, timeout: float = 30) -> int:
        """The exit status (130 for Ctrl-C), reading what it prints meanwhile."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            ready, _, _ = select.select([self.fd], [], [], 0.05)
            if ready:
                with contextlib.suppress(OSError):
                    self.output += os.read(self.fd, 65536)
            if pid:
                self.status = os.waitstatus_to_exitcode(status)
                return self.status
        raise AssertionError(f"still running after {timeout} s: {self.output[-800:]!r}")


@contextlib.contextmanager
def terminal(argv: Sequence[str], *, env: Mapping[str, str], cwd: Path) -> Iterator[Terminal]:
    """Run `argv` as a shell would in the foreground of a new 80x24 terminal."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: a session of its own, with the terminal as its controlling one
        try:
            os.chdir(cwd)
            # A shell starts a foreground program with SIGINT at its default; the test runner
            # may run with it ignored (`cmd &`), which a program inherits.
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.execve(argv[0], list(argv), dict(env))  # noqa: S606 - the test's own argv
        finally:
            os._exit(127)
    running = Terminal(pid, fd)
    try:
        yield running
    finally:
        if running.status is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        os.close(fd)
