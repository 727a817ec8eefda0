"""`runai-why demo`: chat with the bot in a terminal against the bundled simulated cluster.

The simulator runs in-process on a loopback port; the real client, engine and renderer run
against it, so what you see is what Slack users get, rendered as text.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Iterable
from importlib import resources

from bot.backends import simulated
from bot.console import PROMPT, ConsoleSession
from bot.conversation import ConversationEngine, MemoryStore
from runai_sim.scenario import Scenario

__all__ = ["bundled_script", "run_chat"]


def bundled_script() -> list[str]:
    """The guided tour shown when the demo is not attached to a terminal."""
    return (resources.files("bot") / "demo_script.txt").read_text(encoding="utf-8").splitlines()


def _welcome(scenario: Scenario) -> str:
    clusters = ", ".join(str(c.get("name")) for c in scenario.clusters) or "none"
    return (
        f"runai-why demo: a simulated Run:ai control plane ({scenario.name}; clusters: "
        f"{clusters}).\nAsk as you would in Slack, e.g. "
        "`why did training-job-42 in ml-team fail?`. `help` for more, `/new` for a new "
        "thread, Ctrl-D to leave.\n"
    )


async def _lines_from_terminal() -> list[str] | None:
    line = await asyncio.to_thread(sys.stdin.readline)
    return None if line == "" else [line]


async def run_chat(
    scenario: Scenario,
    *,
    script: Iterable[str] | None,
    interactive: bool,
    write: Callable[[str], None],
) -> None:
    """Serve the scenario, then replay `script` or chat interactively until end of input."""
    async with simulated(scenario) as up:
        engine = ConversationEngine(
            runai=up.runai, kube=up.kube, store=MemoryStore(), clock=lambda: scenario.now
        )
        session = ConsoleSession(engine, write)
        write(_welcome(scenario))
        if script is not None:
            await session.run_script(script)
            return
        while True:
            if interactive:
                write(PROMPT)
            lines = await _lines_from_terminal()
            if lines is None:
                write("\n")
                return
            for line in lines:
                await session.say(line)
