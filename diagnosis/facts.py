"""One fact, one line: signals that report the same thing are grouped, and lines merged.

The same OOM kill reaches us from the phase message, the history, Run:ai's pod, an event and
`kubectl describe pod`; a crash loop repeats one back-off event a dozen times. `group`
gathers such signals into one fact (same kind, same pod and container, same termination
within `SAME_FACT`, or the same words), and `merge` (defined in `diagnosis.evidence_line`,
beside the line it merges) turns a report's lines into one line per fact with every source
that reported it. The report keeps every line (`--json` shows them all); what people read is
one line per fact.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import timedelta

from diagnosis.evidence import Signal
from diagnosis.evidence_line import merge
from diagnosis.lexicon import SignalKind

__all__ = ["SAME_FACT", "group", "merge", "words"]

#: Reports of one termination from different sources are this close in time.
SAME_FACT = timedelta(minutes=2)
#: Kinds whose `detail` names the container or node the fact is about.
_SUBJECT_DETAIL = frozenset(
    {
        SignalKind.OOM_KILLED,
        SignalKind.EXIT_CODE,
        SignalKind.INIT_FAILED,
        SignalKind.NODE_NOT_READY,
        SignalKind.NODE_EVICTION,
        SignalKind.NODE_CORDONED,
    }
)


def words(signal: Signal) -> str:
    """The message without its reason prefix, lower-cased: what a reader would call 'the same'."""
    text = signal.text
    if signal.reason and text.startswith(f"{signal.reason}: "):
        text = text[len(signal.reason) + 2 :]
    return " ".join(text.lower().split())


def _agree(a: str | int | None, b: str | int | None) -> bool:
    return a is None or b is None or a == b


def _same(fact: Sequence[Signal], signal: Signal) -> bool:
    first = fact[0]
    if signal.kind is not first.kind:
        return False
    if any(words(s) == words(signal) for s in fact):
        return True
    if first.at is None or signal.at is None or abs(signal.at - first.at) > SAME_FACT:
        return False
    detail = first.kind in _SUBJECT_DETAIL
    return (
        _agree(first.pod, signal.pod)
        and (not detail or _agree(first.detail, signal.detail))
        and _agree(first.exit_code, signal.exit_code)
    )


def group(signals: Iterable[Signal]) -> list[list[Signal]]:
    """The signals gathered into facts, each fact's most telling report first.

    The most telling report is the one with the most words (`container trainer state:
    terminated, reason OOMKilled, exit code 137` over `k8sPhase: OOMKilled`).
    """
    facts: list[list[Signal]] = []
    for signal in signals:
        home = next((fact for fact in facts if _same(fact, signal)), None)
        if home is None:
            facts.append([signal])
        else:
            home.append(signal)
    return [sorted(fact, key=lambda s: -len(s.text)) for fact in facts]
