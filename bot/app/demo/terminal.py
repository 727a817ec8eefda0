"""The demo's typed lines: line editing and history on a terminal, and Ctrl-C never held up.

On a terminal, lines are read with `readline`: arrows and the usual Emacs keys edit the
line, Ctrl-L clears the screen, Up and Down walk this session's history (kept in memory,
never written to a file). Elsewhere (a pipe, or no `readline`) lines are read as they come.
Either way the reading happens on a daemon thread, so a pending read never delays Ctrl-C or
the interpreter's exit, and the terminal's settings are put back however the demo ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import queue
import threading
from collections.abc import Callable
from types import ModuleType, TracebackType
from typing import Any, Self

__all__ = ["TerminalLines"]

Put = Callable[[str | None], None]


def _line_editor() -> ModuleType | None:
    """`readline` with a fresh history, or None where Python has none (Windows)."""
    try:
        import readline  # noqa: PLC0415 - importing it is what turns line editing on
    except ImportError:  # pragma: no cover - every POSIX Python has it
        return None
    readline.clear_history()  # this session's lines only
    return readline


def _read_raw(fd: int, put: Put) -> None:
    """Forward each line read from `fd`, then None at end of input (no editing)."""
    pending = b""
    while chunk := os.read(fd, 4096):
        pending += chunk
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            put(line.decode(errors="replace") + "\n")
    if pending:
        put(pending.decode(errors="replace"))
    put(None)


def _read_edited(prompt: str, wanted: queue.SimpleQueue[None], put: Put) -> None:
    """One `input(prompt)` each time a line is wanted; None at end of input (Ctrl-D)."""
    while True:
        wanted.get()
        try:
            line = input(prompt)
        except EOFError:
            put(None)
            return
        put(line + "\n")


class TerminalLines:
    """The lines typed on `fd`, one `read()` at a time, with `prompt` shown before each.

    `edit` asks for line editing (meant for a terminal); without `readline` it reads plain.
    """

    def __init__(self, fd: int, *, prompt: str, write: Callable[[str], None], edit: bool) -> None:
        self._fd, self._prompt, self._write = fd, prompt, write
        self._editor = _line_editor() if edit else None
        self._wanted: queue.SimpleQueue[None] = queue.SimpleQueue()
        self._lines: asyncio.Queue[str | None] = asyncio.Queue()
        self._saved: list[Any] | None = None

    async def __aenter__(self) -> Self:
        loop = asyncio.get_running_loop()

        def put(item: str | None) -> None:
            with contextlib.suppress(RuntimeError):  # the loop closed: the demo is over
                loop.call_soon_threadsafe(self._lines.put_nowait, item)

        if self._editor is not None:
            self._saved = _terminal_settings(self._fd)
            target, args = _read_edited, (self._prompt, self._wanted, put)
        else:
            target, args = _read_raw, (self._fd, put)  # type: ignore[assignment]
        threading.Thread(target=_guarded(target), args=args, name="demo-stdin", daemon=True).start()
        return self

    async def read(self) -> str | None:
        """The next line (with its newline), or None at end of input."""
        if self._editor is not None:
            self._wanted.put(None)  # `input` shows the prompt, so readline can redraw it
        elif self._prompt:
            self._write(self._prompt)
        return await self._lines.get()

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        # Ctrl-C may arrive while readline holds the terminal in its own mode: give it back.
        if self._saved is not None:
            _restore(self._fd, self._saved)


def _guarded(target: Callable[..., None]) -> Callable[..., None]:
    def run(*args: object) -> None:
        with contextlib.suppress(OSError):  # the terminal went away
            target(*args)

    return run


def _terminal_settings(fd: int) -> list[Any] | None:
    try:
        import termios  # noqa: PLC0415 - POSIX only
    except ImportError:  # pragma: no cover - no readline there either
        return None
    try:
        return termios.tcgetattr(fd)
    except termios.error:
        return None


def _restore(fd: int, saved: list[Any]) -> None:
    import termios  # noqa: PLC0415 - only reached where `_terminal_settings` imported it

    with contextlib.suppress(termios.error):
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
