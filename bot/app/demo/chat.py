"""`runai-why demo`: chat with the bot in a terminal against the bundled simulated cluster.

The simulator runs in-process on a loopback port; the real client, engine and renderer run
against it, so what you see is what Slack users get, rendered as text. On a terminal the
line can be edited and this session's lines recalled (`bot.app.demo.terminal`). Ctrl-D or Ctrl-C
leaves (Ctrl-C quietly, with exit code 130).
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from importlib import resources

from bot.app.backends import simulated
from bot.app.demo.console import PROMPT, ConsoleSession
from bot.app.demo.push import FAIL_COMMAND, DemoPush
from bot.app.demo.scenarios import request_from_expectation
from bot.app.demo.terminal import TerminalLines
from bot.authz import AccessReader, Authorizer
from bot.conversation import (
    Access,
    Incoming,
    MemoryStore,
    ThreadKey,
    console_identity,
)
from bot.ops.audit import LogAuditSink
from bot.watch.engine import WatchingEngine
from diagnosis import AccessDenied, DiagnosisRequest, Report, diagnose
from runai_sim.scenario import Scenario

__all__ = ["DEMO_IDENTITY", "bundled_script", "diagnose_all", "run_chat"]

#: Who the console demo asks as by default (`--as`); the bundled demo denies them project nlp.
DEMO_IDENTITY = "alice@acme.ai"


def bundled_script() -> list[str]:
    """The guided tour shown when the demo is not attached to a terminal."""
    return (resources.files("bot.app.demo") / "script.txt").read_text(encoding="utf-8").splitlines()


def _welcome(scenario: Scenario, email: str) -> str:
    clusters = ", ".join(str(c.get("name")) for c in scenario.clusters) or "none"
    return (
        f"runai-why demo: a simulated Run:ai control plane ({scenario.name}; clusters: "
        f"{clusters}), asking as {email}.\nAsk as you would in Slack, e.g. "
        "`why did training-job-42 in ml-team fail?`. `help` for more, `/new` for a new "
        "thread, Ctrl-D to leave. `watch ml-team on prod-a` subscribes this console, and "
        f"`{FAIL_COMMAND} training-job-42` makes a demo workload fail now.\n"
    )


@asynccontextmanager
async def _authorizer(runai: AccessReader) -> AsyncIterator[Authorizer]:
    """An `Authorizer` whose reads started ahead stop before the clients they use close."""
    authorizer = Authorizer(runai)
    try:
        yield authorizer
    finally:
        await authorizer.aclose()


async def run_chat(
    scenario: Scenario,
    *,
    script: Iterable[str] | None,
    interactive: bool,
    write: Callable[[str], None],
    as_email: str = DEMO_IDENTITY,
) -> None:
    """Serve the scenario, then replay `script` or chat interactively until end of input.

    Every question is asked as `as_email`, whose Run:ai access (the scenario's access model)
    decides what it may see, exactly as for a Slack user with that confirmed e-mail.
    """
    async with simulated(scenario.model_copy(deep=True)) as up, _authorizer(up.runai) as who:
        access = Access(who, console_identity(as_email))
        store = MemoryStore()
        push = DemoPush(up, scenario, store, write, access.authorizer)
        engine = WatchingEngine(
            watch=push.commands,
            runai=up.runai,
            kube=up.kube,
            store=store,
            clock=lambda: scenario.now,
            access=access,
        )
        session = ConsoleSession(engine, write, {FAIL_COMMAND: push.fail})
        write(_welcome(scenario, as_email))
        if script is not None:
            await session.run_script(script)
            return
        prompt = PROMPT if interactive else ""
        # readline edits only where both ends are a terminal; elsewhere `input` would read
        # through sys.stdin's buffer, which a daemon thread must not hold at exit.
        edit = interactive and sys.stdout.isatty()
        terminal = TerminalLines(sys.stdin.fileno(), prompt=prompt, write=write, edit=edit)
        async with terminal:
            while (line := await terminal.read()) is not None:
                await session.say(line)
        write("\n")


async def diagnose_all(
    scenario: Scenario, *, as_email: str = DEMO_IDENTITY
) -> AsyncIterator[tuple[DiagnosisRequest, Report | str]]:
    """`demo --all`: each workload the scenario lists, as `as_email` may see it.

    The same checks as the chat, in the same order: by name, the project before anything
    is listed; by ID, the workload's project before anything of it is used. A refusal is
    yielded as the private denial's text instead of a report.
    """
    async with simulated(scenario) as up, _authorizer(up.runai) as who:
        access = Access(who, console_identity(as_email))
        names = {str(c.get("uuid")): str(c.get("name")) for c in scenario.clusters}
        key = ThreadKey(platform="console", team="local", channel="console", thread="all")
        for expectation in scenario.expect or []:
            request = request_from_expectation(scenario, expectation)
            gate = await access.gate(Incoming(key, "you", text=""), LogAuditSink())
            cluster_id = request.cluster_id or ""
            cluster = names.get(cluster_id, cluster_id)
            if request.workload_id is None:
                decision = await gate.may_list(cluster_id, cluster, request.project or "")
                if not decision.allowed:
                    refused = await gate.deny(decision, typed=request.workload_name, by_id=False)
                    yield request, refused.text
                    continue
            try:
                report = await diagnose(
                    request,
                    runai=up.runai,
                    kube=up.kube,
                    now=scenario.now,
                    authorize=gate.authorize(cluster_id, cluster),
                )
            except AccessDenied:
                assert gate.refused is not None  # noqa: S101 - a refusal is what raised it
                refused = await gate.deny(gate.refused, typed=request.workload_id, by_id=True)
                yield request, refused.text
                continue
            yield request, report
