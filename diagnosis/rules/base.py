"""What a rule returns (`Finding`, with typed `Details`), the registry row, and citing helpers."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from diagnosis.evidence import Evidence, Signal
from diagnosis.report import Category, EvidenceLine, MemoryFigures
from diagnosis.signals import unique

__all__ = [
    "MAX_CITED",
    "CategoryRow",
    "Details",
    "Finding",
    "NodeCause",
    "Policy",
    "PullSubcause",
    "Rule",
    "cite",
    "cite_all",
    "latest",
]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

#: How many signals of one kind a finding quotes; the rest are counted, not repeated.
MAX_CITED = 5


class PullSubcause(StrEnum):
    """Why an image pull failed, as decoded from the registry's error text."""

    NOT_FOUND = "not-found"
    REPO_OR_ACCESS = "repo-or-access"
    AUTH = "auth"
    NETWORK = "network"
    RATE_LIMIT = "rate-limit"
    INVALID_NAME = "invalid-name"
    UNSPECIFIED = "unspecified"


class Policy(StrEnum):
    """Which policy (or person) terminated the workload on purpose."""

    IDLE_TIMEOUT = "idle-timeout"
    MAX_DURATION = "max-duration"
    MANUAL_STOP = "manual-stop"


class NodeCause(StrEnum):
    """What happened to the node under the pod."""

    NOT_READY = "not-ready"
    DRAIN = "drain"
    TAINT_EVICTION = "taint-eviction"
    PRESSURE_EVICTION = "pressure-eviction"


class Details(BaseModel):
    """A finding's machine-readable specifics; every field is None when it does not apply.

    Attributes:
        container: the container the finding is about (the one that was killed or failed).
        init_container: whether `container` is an init container.
        exit_code: its exit code, when one was reported.
        subcause: IMAGE_PULL_FAILED: why the pull failed.
        image: IMAGE_PULL_FAILED: the submitted image reference (redacted).
        policy: SCHEDULING_POLICY_TERMINATED: which policy stopped it.
        deadline: SCHEDULING_POLICY_TERMINATED: the configured limit, when the spec has it.
        node: NODE_FAILURE: the node's name.
        node_cause: NODE_FAILURE: what happened to it.
        over_request: NODE_FAILURE: a pressure eviction of a container using more memory
            than it requested (the fix is the request, not the node).
        volume: DATASOURCE_MOUNT_FAILED: the volume that could not be mounted.
        missing_object: DATASOURCE_MOUNT_FAILED: what the error says does not exist
            (`secret hf-token`, `config map cfg`, `PVC nlp-data`).
        log_kind: the kind of the cited failing log line (`gpu-oom`, `nccl`, `exception`, ...).
        pod, rank: the pod (and its rank) whose failure was first, when several pods failed.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    container: str | None = None
    init_container: bool = False
    exit_code: int | None = None
    subcause: PullSubcause | None = None
    image: str | None = None
    policy: Policy | None = None
    deadline: str | None = None
    node: str | None = None
    node_cause: NodeCause | None = None
    over_request: bool = False
    volume: str | None = None
    missing_object: str | None = None
    log_kind: str | None = None
    pod: str | None = None
    rank: int | None = None


class Finding(BaseModel):
    """A rule's verdict: the category, when its decisive signal happened, and why.

    Attributes:
        category: the category this rule stands for.
        at: time of the most recent decisive signal (None when undated).
        headline: one sentence stating the cause with its key figure.
        evidence: cited lines, decisive ones first.
        details: typed specifics (sub-cause, exit code, container, volume, ...).
        memory: the CPU-memory figures of the container the finding is about, computed once
            here so that headline, evidence, advice and JSON name the same limit.
        missing: gaps this verdict itself depends on (added to the report's gaps).
    """

    model_config = ConfigDict(frozen=True)

    category: Category
    at: datetime | None
    headline: str
    evidence: tuple[EvidenceLine, ...]
    details: Details = Details()
    memory: MemoryFigures | None = None
    missing: tuple[str, ...] = ()


Rule = Callable[[Evidence], Finding | None]
Advice = Callable[[Evidence, Finding], list[str]]


@dataclass(frozen=True)
class CategoryRow:
    """Everything the engine knows about one category, in one place.

    Attributes:
        category: the category.
        rule: the pure rule that recognises it (None only for UNKNOWN, the fallback).
        owner: who normally fixes it (the skill's recovery owner column).
        advise: the next actions, fitted to the finding and to what was collected.
        owner_for: a finer owner when the finding's details change who fixes it.
    """

    category: Category
    rule: Rule | None
    owner: str
    advise: Advice
    owner_for: Callable[[Finding], str | None] | None = None

    def owner_of(self, finding: Finding) -> str:
        """The recovery owner for this finding: the detailed one if known, else the default."""
        specific = self.owner_for(finding) if self.owner_for else None
        return specific or self.owner


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
