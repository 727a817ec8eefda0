"""The interactive demo in a real terminal: line editing, this session's history, Ctrl-L."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from bot.app.demo.terminal import TerminalLines
from tests.terminal import terminal

pytestmark = pytest.mark.e2e

CLI = str(Path(sys.executable).with_name("runai-why"))
LEFT, UP = b"\x1b[D", b"\x1b[A"
HELP_SAYS = b"I explain why a Run:ai workload failed"


def _env(tmp_path: Path) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "TERM": "xterm"}


def test_arrows_edit_the_line_and_up_recalls_it(tmp_path: Path):
    with terminal([CLI, "demo"], env=_env(tmp_path), cwd=tmp_path) as demo:
        demo.expect(b"you> ")
        demo.type(b"hlp" + LEFT + LEFT + b"e\r")  # "hlp", two left, insert "e": "help"
        demo.expect(HELP_SAYS)
        demo.expect(b"you> ")
        demo.type(UP + b"\r")  # the line typed before, from this session's history
        demo.expect(HELP_SAYS)
        demo.expect(b"you> ")
        demo.type(b"\x0c")  # Ctrl-L clears the screen and shows the prompt again
        demo.expect(b"\x1b[H\x1b[2J")
        demo.type(b"\x04")  # Ctrl-D on an empty line leaves
        assert demo.wait() == 0
    assert b"^[[D" not in demo.output  # the arrows edited; they were not typed as text
    assert b"not understand" not in demo.output.lower()


def test_ctrl_c_at_the_prompt_leaves_quietly_and_gives_the_terminal_back(tmp_path: Path):
    with terminal([CLI, "demo"], env=_env(tmp_path), cwd=tmp_path) as demo:
        demo.expect(b"you> ")
        demo.type(b"half a line\x03")
        assert demo.wait() == 130
    assert b"Traceback" not in demo.output


async def test_lines_from_a_pipe_keep_their_newlines_and_end_with_none():
    read_end, write_end = os.pipe()
    os.write(write_end, b"help\nwhy did x fail?\nno newline at the end")
    os.close(write_end)
    shown: list[str] = []
    try:
        async with TerminalLines(read_end, prompt="you> ", write=shown.append, edit=False) as lines:
            got = [await lines.read() for _ in range(4)]
    finally:
        os.close(read_end)
    assert got == ["help\n", "why did x fail?\n", "no newline at the end", None]
    assert shown == ["you> "] * 4


async def test_edited_lines_are_read_one_prompt_at_a_time(monkeypatch):
    typed = iter(["help", "show logs"])
    prompts: list[str] = []

    def fake_input(prompt: str) -> str:
        prompts.append(prompt)
        try:
            return next(typed)
        except StopIteration:
            raise EOFError from None

    monkeypatch.setattr("builtins.input", fake_input)
    read_end, write_end = os.pipe()  # not a terminal: there are no settings to give back
    try:
        async with TerminalLines(read_end, prompt="you> ", write=print, edit=True) as lines:
            got = [await lines.read() for _ in range(3)]
    finally:
        os.close(read_end)
        os.close(write_end)
    assert got == ["help\n", "show logs\n", None]
    assert prompts == ["you> "] * 3
