"""Pure extraction of `Signal`s from Run:ai objects (status, events, pods, history).

Only system-written fields are read: phase reason and message, conditions, event reasons
and messages, pod `k8sPhase`. The submitted spec and command are never a signal (the skill:
"never classify a failure from the submit command or spec alone"). Every quoted text is
redacted and shortened here, before it can reach a report.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import datetime

from diagnosis.evidence import Signal
from diagnosis.lexicon import (
    EXIT_CODE_PATTERNS,
    PULL_SUBCAUSES,
    SIGNAL_PATTERNS,
    SIGNAL_REASONS,
    SignalKind,
    extract_detail,
)
from diagnosis.literals import Prefilter
from diagnosis.redact import Redactor, shorten
from diagnosis.runai.models import Event, HistoryRecord, Pod, Workload
from diagnosis.xid import xid_in

__all__ = [
    "STATUS",
    "events_signals",
    "history_signals",
    "pod_signals",
    "pull_subcause",
    "start_cause",
    "status_signals",
    "text_signals",
    "unique",
]

STATUS = "get_workload_status"
PODS = "get_workload_pods"
HISTORY = "get_workload_history"

_POD_PHASES: dict[str, SignalKind] = {
    "oomkilled": SignalKind.OOM_KILLED,
    "error": SignalKind.POD_ERROR,
    "failed": SignalKind.POD_ERROR,
    "crashloopbackoff": SignalKind.CRASHLOOP,
    "imagepullbackoff": SignalKind.IMAGE_PULL,
    "errimagepull": SignalKind.IMAGE_PULL,
    "init:error": SignalKind.INIT_FAILED,
    "init:crashloopbackoff": SignalKind.INIT_FAILED,
}


#: The lexicon's patterns behind their literal pre-checks (`diagnosis.literals`).
_SIGNAL_SEARCH = Prefilter([(k, p) for k, patterns in SIGNAL_PATTERNS.items() for p in patterns])
_EXIT_SEARCH = Prefilter([(None, p) for p in EXIT_CODE_PATTERNS])
_PULL_SEARCH = Prefilter(PULL_SUBCAUSES)


def pull_subcause(text: str) -> str | None:
    """Why an image pull failed (`lexicon.PULL_SUBCAUSES`, first match), or None."""
    return next((name for name, rx in _PULL_SEARCH.candidates(text) if rx.search(text)), None)


def _detail(kind: SignalKind, text: str) -> str | None:
    if kind is SignalKind.IMAGE_PULL:
        return pull_subcause(text)
    if kind is SignalKind.MOUNT_FAILED:
        return extract_detail("volume", text)
    if kind in {SignalKind.NODE_NOT_READY, SignalKind.NODE_EVICTION, SignalKind.NODE_CORDONED}:
        return extract_detail("node", text)
    if kind in {SignalKind.INIT_FAILED, SignalKind.EXIT_CODE, SignalKind.OOM_KILLED}:
        return extract_detail("container", text)
    if kind is SignalKind.GPU_XID and (xid := xid_in(text)) is not None:
        return str(xid.code)
    return None


def start_cause(message: str, redactor: Redactor) -> str:
    """What the runtime says made a container's start fail, redacted and short.

    `exec: "trainx": executable file not found in $PATH`, without the runtime's own
    prefixes; the whole message when it has none of them. It is free text that may quote the
    submitted command, so it is redacted like any quote.
    """
    cleaned = redactor.clean(message)
    return shorten(extract_detail("start", cleaned) or cleaned, 200)


def text_signals(
    reason: str | None,
    message: str | None,
    *,
    at: datetime | None,
    source: str,
    origin: str,
    key: str,
    redactor: Redactor,
) -> Iterator[Signal]:
    """Signals carried by one (reason, message) pair; each kind at most once."""
    raw = " ".join(part for part in (reason, message) if part)
    if not raw:
        return
    quoted = shorten(redactor.clean(raw if not reason else f"{reason}: {message or ''}"))
    kinds: dict[SignalKind, None] = {}
    by_reason = SIGNAL_REASONS.get((reason or "").strip().lower())
    if by_reason is not None:
        kinds[by_reason] = None
    for kind, pattern in _SIGNAL_SEARCH.candidates(raw):  # in the lexicon's order
        if kind not in kinds and pattern.search(raw):
            kinds[kind] = None
    common = {"at": at, "source": source, "origin": origin, "reason": reason, "text": quoted}
    for kind in kinds:
        detail = (
            start_cause(raw, redactor) if kind is SignalKind.START_ERROR else _detail(kind, raw)
        )
        yield Signal(kind=kind, detail=detail, key=f"{key}:{kind}", **common)
    for _, pattern in _EXIT_SEARCH.candidates(raw):
        match = pattern.search(raw)
        if match:
            yield Signal(
                kind=SignalKind.EXIT_CODE,
                exit_code=int(match.group(1)),
                detail=extract_detail("container", raw),
                key=f"{key}:exit",
                **common,
            )
            break


def status_signals(workload: Workload, redactor: Redactor) -> Iterator[Signal]:
    """Signals in the workload's phase reason/message and conditions."""
    yield from text_signals(
        workload.phase_reason,
        workload.phase_message,
        at=workload.phase_updated_at,
        source=STATUS,
        origin="phase message",
        key=f"phase:{workload.id}",
        redactor=redactor,
    )
    for index, cond in enumerate(workload.conditions):
        if (cond.status or "").lower() == "false" and cond.type.lower() != "failed":
            continue  # a condition that is not in effect is not evidence of anything
        yield from text_signals(
            cond.reason,
            cond.message,
            at=cond.last_transition_time,
            source=STATUS,
            origin=f"condition {cond.type}",
            key=f"cond:{index}:{cond.type}",
            redactor=redactor,
        )


def _event_signals(event: Event, source: str, origin: str, redactor: Redactor) -> Iterator[Signal]:
    key = event.id or f"{event.created_at}:{event.reason}:{event.message}"
    about = event.involved_object
    pod = about.name if about is not None and (about.kind or "").lower() == "pod" else None
    for signal in text_signals(
        event.reason,
        event.message,
        at=event.created_at,
        source=source,
        origin=origin,
        key=f"event:{key}",
        redactor=redactor,
    ):
        yield signal.model_copy(update={"pod": pod}) if pod else signal


def events_signals(events: Iterable[Event], redactor: Redactor) -> Iterator[Signal]:
    """Signals in the workload's recent events (cited as `get_workload_status`, like the skill)."""
    for event in events:
        yield from _event_signals(event, STATUS, "event", redactor)


def pod_signals(pods: Iterable[Pod], redactor: Redactor) -> Iterator[Signal]:
    """Signals in the pods' `k8sPhase` (OOMKilled is direct; Error needs corroboration)."""
    for pod in pods:
        kind = _POD_PHASES.get((pod.k8s_phase or "").lower())
        if kind is None:
            continue
        yield Signal(
            kind=kind,
            at=pod.k8s_phase_updated_at or pod.completed_at,
            source=PODS,
            origin=f"pod {pod.name}",
            reason=pod.k8s_phase,
            text=shorten(redactor.clean(f"Pod {pod.name} k8sPhase: {pod.k8s_phase}")),
            detail=pod.node_name if kind is SignalKind.POD_ERROR else None,
            key=f"pod:{pod.name}:{kind}",
            pod=pod.name,
        )


def history_signals(records: Iterable[HistoryRecord], redactor: Redactor) -> Iterator[Signal]:
    """Signals in history events and phase-update messages."""
    for record in records:
        if record.spec.event is not None:
            yield from _event_signals(record.spec.event, HISTORY, "history event", redactor)
        elif record.spec.phase_update is not None:
            update = record.spec.phase_update
            yield from text_signals(
                None,
                update.phase_message,
                at=record.at,
                source=HISTORY,
                origin=f"phase update to {update.phase}",
                key=f"phaseupdate:{record.at.isoformat()}",
                redactor=redactor,
            )


def unique(signals: Iterable[Signal]) -> list[Signal]:
    """Drop repeats of the same upstream fact (an event seen in both events and history)."""
    seen: set[str] = set()
    out: list[Signal] = []
    for signal in signals:
        if signal.key in seen:
            continue
        seen.add(signal.key)
        out.append(signal)
    return out
