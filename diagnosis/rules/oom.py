"""OOM_KILLED: the kernel killed a container for exceeding its CPU-memory limit."""

from __future__ import annotations

from diagnosis.evidence import Evidence
from diagnosis.lexicon import SignalKind
from diagnosis.memory import memory_evidence
from diagnosis.quantity import format_bytes
from diagnosis.report import Category
from diagnosis.rules.base import CategoryRow, Details, Finding, cite_all, latest

__all__ = ["ROW", "oom_killed"]


def oom_killed(ev: Evidence) -> Finding | None:
    """A direct `OOMKilled` signal (event, condition, phase message or pod k8sPhase).

    CUDA out-of-memory is not this category: it is the GPU allocator failing inside the
    process, which the crash rule reports. Exit 137 alone is not OOM either. The memory
    figures are those of the killed container (an init container's own), computed here once.
    """
    signals = ev.of(SignalKind.OOM_KILLED)
    if not signals:
        return None
    container = next((s.detail for s in reversed(signals) if s.detail), None)
    init = container is not None and any(
        s.kind is SignalKind.INIT_FAILED and s.detail == container for s in ev.signals
    )
    memory = memory_evidence(ev, container, init=init)
    container = memory.figures.container
    limit = memory.figures.limit_bytes
    kind = "Init container" if init else "Container"
    who = f"{kind} {container}" if container else "A container"
    if limit is not None:
        why = f"it exceeded its CPU-memory limit of {format_bytes(limit)}"
    elif memory.limit_unset:
        why = "no CPU-memory limit is set, so the node's memory was the ceiling"
    else:
        why = "it ran out of memory (its CPU-memory limit could not be read)"
    killed_at = latest(signals)
    return Finding(
        category=Category.OOM_KILLED,
        at=killed_at,
        headline=f"{who} was OOM-killed: {why}.",
        evidence=(*cite_all(signals), *memory.lines),
        details=Details(container=container, init_container=init),
        memory=memory.figures.model_copy(update={"killed_at": killed_at}),
        missing=tuple(memory.missing),
    )


def _advise(_: Evidence, finding: Finding) -> list[str]:
    memory = finding.memory
    limit_bytes = memory.limit_bytes if memory else None
    limit = f"the {format_bytes(limit_bytes)} limit" if limit_bytes else "the limit"
    container = finding.details.container
    if finding.details.init_container:
        who = f"init container {container}" if container else "the init container"
        return [
            f"Raise {limit} of {who} (its own limit, not the main container's) with "
            "headroom, or make its script hold less in memory: stream or chunk downloads and "
            "extraction instead of loading whole files.",
        ]
    of = f" of container {container}" if container else ""
    actions = [f"Profile memory and raise {limit}{of} with sufficient headroom before rerunning."]
    if memory is not None and memory.configured_read and limit_bytes is None:  # read: none set
        actions[0] = (
            "No CPU-memory limit is set, so the node's memory was the ceiling: set a limit "
            "with headroom over the measured use, and a request to match."
        )
    actions.append(
        "Investigate batch size and dataloader growth (workers, prefetch, caching); "
        "consider gradient checkpointing."
    )
    return actions


ROW = CategoryRow(
    category=Category.OOM_KILLED,
    rule=oom_killed,
    owner="User: raise memory; administrator: node memory",
    advise=_advise,
)
