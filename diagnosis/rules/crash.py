"""CRASH_APP_ERROR: the main container exited non-zero with no system kill behind it."""

from __future__ import annotations

from diagnosis.evidence import Evidence
from diagnosis.exitcodes import describe_exit_code, is_app_error
from diagnosis.lexicon import SignalKind
from diagnosis.report import Category
from diagnosis.rules.base import Finding, cite_all, latest

__all__ = ["crash_app_error"]


def crash_app_error(ev: Evidence) -> Finding | None:
    """A non-zero exit code that is not 137/143/130/129 and not an init container's."""
    init_keys = {s.key.rsplit(":", 1)[0] for s in ev.of(SignalKind.INIT_FAILED)}
    exits = [
        s
        for s in ev.of(SignalKind.EXIT_CODE)
        if s.exit_code is not None
        and is_app_error(s.exit_code)
        and s.key.rsplit(":", 1)[0] not in init_keys
    ]
    if not exits:
        return None
    newest = exits[-1]
    code = newest.exit_code or 0
    who = f"Container {newest.detail}" if newest.detail else "The main container"
    details: dict[str, str | int] = {"exit_code": code}
    if newest.detail:
        details["container"] = newest.detail
    logs = ev.of(SignalKind.LOG_ERROR)
    headline = f"{who} exited with code {describe_exit_code(code)}."
    if any(s.detail == "gpu-oom" for s in logs):
        details["finding"] = "gpu-oom"
        headline = (
            f"{who} exited with code {code} after a GPU memory error (CUDA out of memory): "
            "the GPU allocator failed inside the process, not the kernel's OOM killer."
        )
    elif logs:
        details["finding"] = logs[-1].detail or "error"
    return Finding(
        category=Category.CRASH_APP_ERROR,
        at=latest(exits),
        headline=headline,
        evidence=(*cite_all(logs), *cite_all([*exits, *ev.of(SignalKind.CRASHLOOP)])),
        details=details,
    )
