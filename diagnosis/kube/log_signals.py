"""The failing log line as signals: the line itself, and the facts it (and its log) states.

Logs are the workload's own words: these signals never decide a category. They quote the
line that explains a failure (`diagnosis.logs` finds it), the NCCL and rendezvous facts the
log states (`diagnosis.collective`) and the GPU Xid it reports (`diagnosis.xid`), each
attributed to its pod and rank.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from diagnosis import collective
from diagnosis.collective import line_rank
from diagnosis.evidence import Signal
from diagnosis.lexicon import SignalKind
from diagnosis.logs import FailingLine
from diagnosis.redact import Redactor, shorten
from diagnosis.xid import xid_in

__all__ = ["MAX_COLLECTIVE_FACTS", "line_facts", "log_signal"]


def log_signal(
    line: FailingLine,
    *,
    container: str,
    cite: str,
    redactor: Redactor,
    pod: str | None = None,
    rank: int | None = None,
) -> Signal:
    """The failing log line as supporting evidence (never a verdict by itself).

    Its rank is the line's own (`[rank3]:`), else the pod's.
    """
    own = line_rank(line.text)
    return Signal(
        kind=SignalKind.LOG_ERROR,
        at=None,
        source=cite,
        origin=f"container {container} log line {line.line_number}",
        text=line.quote(redactor, 200),
        detail=line.kind,
        key=f"log:{container}:{line.line_number}",
        pod=pod,
        rank=own if own is not None else rank,
    )


#: Collective facts quoted from one log at most (the failing line's first).
MAX_COLLECTIVE_FACTS = 3


def line_facts(line: Signal, raw: str, *, log: str = "", redactor: Redactor) -> Iterator[Signal]:
    """What a log states beyond its failing line's words: collectives' facts, a GPU's Xid.

    `line` is the failing line's `log_signal`, `raw` that line as the log wrote it, `log`
    the text read: NCCL and rendezvous lines elsewhere in it are read too (a peer that
    closed the connection before the exception that ended the process), the failing line's
    first, at most `MAX_COLLECTIVE_FACTS` distinct ones. Each fact is cited like the line,
    redacted, and never decides a category.
    """
    origin = line.origin.rsplit(" ", 1)[0]  # `container trainer log line`
    lines = [(line.origin, raw)]
    lines += [(f"{origin} {n}", text) for n, text in enumerate(log.splitlines(), start=1)]
    seen: set[collective.CollectiveFact] = set()
    for where, text in lines:
        fact = collective.parse(text)
        if fact is None or fact in seen or len(seen) >= MAX_COLLECTIVE_FACTS:
            continue
        seen.add(fact)
        if fact.rank is None:  # the line names none: it is the pod's own rank's
            fact = replace(fact, rank=line.rank)
        yield Signal(
            kind=SignalKind.COLLECTIVE,
            at=None,
            source=line.source,
            origin=where,
            text=shorten(redactor.clean(fact.describe())),
            detail=fact.kind,
            key=f"{line.key}:collective:{len(seen)}",
            pod=line.pod,
            rank=fact.rank,
        )
    if (xid := xid_in(raw)) is not None:
        yield Signal(
            kind=SignalKind.GPU_XID,
            at=None,
            source=line.source,
            origin=line.origin,
            text=xid.describe(),
            detail=str(xid.code),
            key=f"{line.key}:xid",
            pod=line.pod,
            rank=line.rank,
        )
