"""The scheduler's eviction texts and annotations, as data: what kind, and who is named.

The KAI scheduler's `Evict` event on the victim's PodGroup says how it was evicted, and for a
priority preemption or a reclaim names the preemptor (`<namespace>/<podgroup>`); a reclaim adds
both queues' figures at decision time. The event's annotations (`evictor-action-type`,
`evictor-pod-group-name`, `evictor-pod-group-namespace`) say the same in fields, and are the
only place a consolidation names its beneficiary. Run:ai's byte-identical use of these texts
is unconfirmed: an annotation wins over a text, and the text is quoted as evidence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from diagnosis.pending.texts import MAX_TEXT

__all__ = [
    "ACTIONS",
    "ACTION_ANNOTATION",
    "EVICTOR_NAME",
    "EVICTOR_NAMESPACE",
    "EvictText",
    "PreemptionKind",
    "QueueLine",
    "read_eviction",
]

ACTION_ANNOTATION = "evictor-action-type"
EVICTOR_NAME = "evictor-pod-group-name"
EVICTOR_NAMESPACE = "evictor-pod-group-namespace"


class PreemptionKind(StrEnum):
    """How the scheduler took the workload's resources (one identifier per table row)."""

    PRIORITY_PREEMPTION = "PRIORITY_PREEMPTION"
    RECLAIM_FAIR_SHARE = "RECLAIM_FAIR_SHARE"
    CONSOLIDATION = "CONSOLIDATION"
    STALE_GANG_EVICTION = "STALE_GANG_EVICTION"
    UNKNOWN = "UNKNOWN"


#: `evictor-action-type` values.
ACTIONS: dict[str, PreemptionKind] = {
    "preempt": PreemptionKind.PRIORITY_PREEMPTION,
    "reclaim": PreemptionKind.RECLAIM_FAIR_SHARE,
    "consolidation": PreemptionKind.CONSOLIDATION,
    "stalegangeviction": PreemptionKind.STALE_GANG_EVICTION,
}

_NAME = r"[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?"
_TEXTS: tuple[tuple[PreemptionKind, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern, re.IGNORECASE))
    for kind, pattern in (
        (
            PreemptionKind.PRIORITY_PREEMPTION,
            rf"was preempted by higher priority workload (?P<ns>{_NAME})/(?P<pg>{_NAME})",
        ),
        (
            PreemptionKind.RECLAIM_FAIR_SHARE,
            rf"was preempted by workload (?P<ns>{_NAME})/(?P<pg>{_NAME})",
        ),
        (
            PreemptionKind.CONSOLIDATION,
            r"was preempted and rescheduled due to bin packing",
        ),
        (
            PreemptionKind.STALE_GANG_EVICTION,
            r"doesn't meet the minimum required number of pods \((?P<min>\d{1,9})\), evicting",
        ),
    )
)
_QUEUE_LINE = re.compile(
    r"(?P<queue>[\w.-]{1,253}) uses (?P<uses>[^\n]{1,200}?) with a quota of "
    r"(?P<quota>[^\n]{1,200}?), fair-share of (?P<share>[^\n]{1,200}?) and queue priority of "
    r"(?P<priority>\d{1,9})",
    re.IGNORECASE,
)
_GPU = re.compile(
    r"(\d{1,12}(?:\.\d{1,6})?)\s{0,3}GPUs?\b|\bGPUs?\b\W{0,3}(\d{1,12}(?:\.\d{1,6})?)",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"-?\d{1,12}(?:\.\d{1,6})?")


def _gpus(text: str) -> float | None:
    """The GPU figure of a resource text (`6 GPUs`, `GPU: 6, CPU: 48`, or a bare `6`)."""
    match = _GPU.search(text)
    if match:
        return float(match.group(1) or match.group(2))
    numbers = _NUMBER.findall(text)
    return float(numbers[0]) if len(numbers) == 1 else None


@dataclass(frozen=True)
class QueueLine:
    """One queue's figures in a reclaim text, at the moment the scheduler decided."""

    queue: str
    uses: float | None
    quota: float | None
    fair_share: float | None
    priority: int
    text: str


@dataclass(frozen=True)
class EvictText:
    """What one eviction text says: the kind, the preemptor, the queues, the gang minimum."""

    kind: PreemptionKind
    namespace: str | None = None
    podgroup: str | None = None
    queues: tuple[QueueLine, ...] = ()
    min_member: int | None = None


def read_eviction(message: str | None) -> EvictText | None:
    """The eviction text's meaning, or None when it is not one of the scheduler's texts."""
    text = (message or "")[:MAX_TEXT]
    for kind, pattern in _TEXTS:
        match = pattern.search(text)
        if match is None:
            continue
        found = match.groupdict()
        queues = tuple(
            QueueLine(
                queue=q["queue"],
                uses=_gpus(q["uses"]),
                quota=_gpus(q["quota"]),
                fair_share=_gpus(q["share"]),
                priority=int(q["priority"]),
                text=q.group(0),
            )
            for q in _QUEUE_LINE.finditer(text)
        )
        return EvictText(
            kind=kind,
            namespace=found.get("ns"),
            podgroup=(found.get("pg") or "").rstrip(".") or None,
            queues=queues,
            min_member=int(found["min"]) if found.get("min") else None,
        )
    return None
