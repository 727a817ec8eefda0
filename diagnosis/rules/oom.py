"""OOM_KILLED: the kernel killed a container for exceeding its CPU-memory limit."""

from __future__ import annotations

from diagnosis.evidence import Evidence
from diagnosis.lexicon import SignalKind
from diagnosis.memory import memory_evidence
from diagnosis.quantity import format_bytes
from diagnosis.report import Category
from diagnosis.rules.base import Finding, cite_all, latest

__all__ = ["oom_killed"]


def oom_killed(ev: Evidence) -> Finding | None:
    """A direct `OOMKilled` signal (event, condition, phase message or pod k8sPhase).

    CUDA out-of-memory is not this category: it is the GPU allocator failing inside the
    process, which the crash rule reports. Exit 137 alone is not OOM either.
    """
    signals = ev.of(SignalKind.OOM_KILLED)
    if not signals:
        return None
    container = next((s.detail for s in reversed(signals) if s.detail), None)
    memory, memory_lines, _ = memory_evidence(ev, container)
    limit = f" of {format_bytes(memory.limit_bytes)}" if memory.limit_bytes else ""
    init = any(s.kind is SignalKind.INIT_FAILED and s.detail == container for s in ev.signals)
    kind = "Init container" if init else "Container"
    who = f"{kind} {container}" if container else "A container"
    return Finding(
        category=Category.OOM_KILLED,
        at=latest(signals),
        headline=f"{who} was OOM-killed: it exceeded its CPU-memory limit{limit}.",
        evidence=(*cite_all(signals), *memory_lines),
        details={"container": container} if container else {},
    )
