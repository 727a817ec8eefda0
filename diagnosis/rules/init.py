"""INIT_FAILED: an init container failed before the main container started."""

from __future__ import annotations

from diagnosis.evidence import Evidence
from diagnosis.exitcodes import describe_exit_code
from diagnosis.lexicon import SignalKind
from diagnosis.report import Category
from diagnosis.rules.advice import kubectl_logs, log_lines, logs_read
from diagnosis.rules.base import CategoryRow, Details, Finding, cite_all, latest

__all__ = ["ROW", "init_failed"]


def init_failed(ev: Evidence) -> Finding | None:
    """`Init:Error`, `Init:CrashLoopBackOff` or an init container's non-zero exit.

    The init container's failing log line, when Tier 2 read one, is cited first: it is what
    the user needs, and the reason the bot read the log.
    """
    signals = ev.of(SignalKind.INIT_FAILED)
    if not signals:
        return None
    keys = {s.key.rsplit(":", 1)[0] for s in signals}
    exits = [
        s for s in ev.of(SignalKind.EXIT_CODE) if s.key.rsplit(":", 1)[0] in keys and s.exit_code
    ]
    container = next((s.detail for s in reversed(signals) if s.detail), None)
    who = f"Init container {container}" if container else "An init container"
    headline = f"{who} failed before the main container started"
    code = exits[-1].exit_code if exits else None
    if code:
        headline += f" (exit {describe_exit_code(code)})"
    logs = [
        s
        for s in ev.of(SignalKind.LOG_ERROR)
        if container is not None and s.key.startswith(f"log:{container}:")
    ]
    return Finding(
        category=Category.INIT_FAILED,
        at=latest(signals),
        headline=headline + ".",
        evidence=(*cite_all(logs), *cite_all(signals)),
        details=Details(
            container=container,
            init_container=True,
            exit_code=code,
            log_kind=logs[-1].detail if logs else None,
        ),
    )


def _advise(ev: Evidence, finding: Finding) -> list[str]:
    container = finding.details.container
    who = f"init container {container}" if container else "the init container"
    if log_lines(ev, container):
        return [
            f"Fix {who}'s script or its inputs: its failing log line is quoted above. "
            "Rerunning unchanged will fail the same way."
        ]
    if logs_read(ev):
        return [
            f"Fix {who}'s script or its inputs: its log shows no error line, so check its "
            "exit code and what the script needs (files, URLs, credentials, permissions)."
        ]
    return [
        f"Fix {who}'s script or its inputs; its log says where it stopped: "
        f"{kubectl_logs(ev, container)}."
    ]


ROW = CategoryRow(
    category=Category.INIT_FAILED,
    rule=init_failed,
    owner="User: fix the init script",
    advise=_advise,
    container_evidence=True,
)
