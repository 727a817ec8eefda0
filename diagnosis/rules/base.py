"""What a rule returns (`Finding`) and the small helpers rules share to cite signals."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import UTC, datetime

from pydantic import BaseModel, ConfigDict

from diagnosis.evidence import Evidence, Signal
from diagnosis.report import Category, EvidenceLine
from diagnosis.signals import unique

__all__ = ["MAX_CITED", "Finding", "Rule", "cite", "cite_all", "latest"]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

#: How many signals of one kind a finding quotes; the rest are counted, not repeated.
MAX_CITED = 5


class Finding(BaseModel):
    """A rule's verdict: the category, when its decisive signal happened, and why.

    Attributes:
        category: the category this rule stands for.
        at: time of the most recent decisive signal (None when undated).
        headline: one sentence stating the cause with its key figure.
        evidence: cited lines, decisive ones first.
        details: machine-readable specifics (sub-cause, exit code, container, volume, ...).
    """

    model_config = ConfigDict(frozen=True)

    category: Category
    at: datetime | None
    headline: str
    evidence: tuple[EvidenceLine, ...]
    details: dict[str, str | int] = {}


Rule = Callable[[Evidence], Finding | None]


def cite(signal: Signal) -> EvidenceLine:
    """One evidence line for a signal: what was said, where, and when."""
    when = f" at {signal.at:%Y-%m-%d %H:%M:%SZ}" if signal.at else ""
    origin = signal.origin[:1].upper() + signal.origin[1:]
    return EvidenceLine(text=f"{origin}{when}: {signal.text}", source=signal.source)


def _words(signal: Signal) -> str:
    """The message without its reason prefix, lower-cased: what a reader would call 'the same'."""
    text = signal.text
    if signal.reason and text.startswith(f"{signal.reason}: "):
        text = text[len(signal.reason) + 2 :]
    return text.lower()


def cite_all(signals: Iterable[Signal]) -> list[EvidenceLine]:
    """Cite up to `MAX_CITED` distinct signals, every source represented, newest first.

    The same words repeated by a condition, an event and history are cited once; then each
    source (status, history, pods, `kubectl describe pod`, ...) gets its newest signal in
    before any source gets a second one, and the rest are counted, not repeated.
    """
    newest = sorted(unique(signals), key=lambda s: s.at or _EPOCH, reverse=True)
    seen: set[str] = set()
    by_source: dict[str, list[Signal]] = {}
    for signal in newest:
        words = _words(signal)
        if words not in seen:
            seen.add(words)
            by_source.setdefault(signal.source, []).append(signal)
    chosen: list[Signal] = []
    rounds = max((len(group) for group in by_source.values()), default=0)
    for index in range(rounds):
        chosen.extend(group[index] for group in by_source.values() if index < len(group))
    shown = sorted(chosen[:MAX_CITED], key=lambda s: s.at or _EPOCH, reverse=True)
    lines = [cite(s) for s in shown]
    if len(chosen) > MAX_CITED:
        rest = chosen[MAX_CITED:]
        lines.append(
            EvidenceLine(text=f"…and {len(rest)} more of the same kind", source=rest[0].source)
        )
    return lines


def latest(signals: Iterable[Signal]) -> datetime | None:
    """The most recent timestamp among signals, or None if none is dated."""
    dated = [s.at for s in signals if s.at is not None]
    return max(dated) if dated else None
