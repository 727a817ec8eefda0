"""What a rule returns (`Finding`, with typed `Details`), the registry row, and citing helpers."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from diagnosis.evidence import Evidence, Signal
from diagnosis.facts import group
from diagnosis.moments import utc_text
from diagnosis.report import Category, EvidenceLine
from diagnosis.report_parts import MemoryFigures
from diagnosis.signals import unique

__all__ = [
    "CategoryRow",
    "Details",
    "Finding",
    "NodeCause",
    "Policy",
    "PullSubcause",
    "Rule",
    "cite",
    "cite_all",
    "cite_eviction",
    "latest",
]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


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
        image: IMAGE_PULL_FAILED: the image that failed (redacted): the one the registry
            error names, else the submitted one.
        image_named: IMAGE_PULL_FAILED: `image` is the one the registry error names (False:
            the error names none, so it is the submitted image).
        policy: SCHEDULING_POLICY_TERMINATED: which policy stopped it.
        deadline: SCHEDULING_POLICY_TERMINATED: the configured limit, when the spec has it.
        node: NODE_FAILURE: the node's name; CRASH_APP_ERROR from a GPU hardware fault:
            the node the failed pod ran on.
        node_cause: NODE_FAILURE: what happened to it.
        over_request: NODE_FAILURE: a pressure eviction of a container using more memory
            than it requested (the fix is the request, not the node).
        node_trouble: NODE_FAILURE: the node shows a problem of its own (NotReady, a cordon,
            a node-class Xid, not Ready as read now), not only the eviction of the pod.
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
    image_named: bool = False
    policy: Policy | None = None
    deadline: str | None = None
    node: str | None = None
    node_cause: NodeCause | None = None
    over_request: bool = False
    node_trouble: bool = False
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
        evidence: the lines the verdict rests on: the direct signal, the quantities, the
            failing log line (the report marks them deciding).
        details: typed specifics (sub-cause, exit code, container, volume, ...).
        memory: the CPU-memory figures of the container the finding is about, computed once
            here so that headline, evidence, advice and JSON name the same limit.
        missing: gaps this verdict itself depends on (added to the report's gaps).
        context: lines that support the finding without deciding it (a node's status now,
            the submitted image, the pods that failed after the first one).
    """

    model_config = ConfigDict(frozen=True)

    category: Category
    at: datetime | None
    headline: str
    evidence: tuple[EvidenceLine, ...]
    details: Details = Details()
    memory: MemoryFigures | None = None
    missing: tuple[str, ...] = ()
    context: tuple[EvidenceLine, ...] = ()


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
        owner_for: a finer owner when the finding's details change who fixes it: a
            refinement of the skill's column, or a documented exception to it whose text says
            it is one (a crash whose failing line is a GPU hardware fault, `rules.crash`).
        container_evidence: its answer rests on container-level evidence (the failing log
            line, an exit code's cause), so without Kubernetes that is the gap that matters.
        blast_radius: its finding names a node whose other terminations are worth counting
            (`diagnosis.blast`).
    """

    category: Category
    rule: Rule | None
    owner: str
    advise: Advice
    owner_for: Callable[[Finding], str | None] | None = None
    container_evidence: bool = False
    blast_radius: bool = False

    def owner_of(self, finding: Finding) -> str:
        """The recovery owner for this finding: the detailed one if known, else the default."""
        specific = self.owner_for(finding) if self.owner_for else None
        return specific or self.owner


def cite(signal: Signal) -> EvidenceLine:
    """One evidence line for a signal: what was said, where, and when."""
    when = f" at {utc_text(signal.at)}" if signal.at else ""
    origin = signal.origin[:1].upper() + signal.origin[1:]
    return EvidenceLine(text=f"{origin}{when}: {signal.text}", source=signal.source)


def cite_eviction(signal: Signal) -> EvidenceLine:
    """An eviction as any answer but the preemption answer cites it: when, where, not its words.

    The scheduler's record may name the workload that took the GPUs and the queues' figures;
    only the preemption answer shows them, cut to each asker's access.
    """
    when = f" at {utc_text(signal.at)}" if signal.at else ""
    origin = signal.origin[:1].upper() + signal.origin[1:]
    text = (
        f"{origin}{when}: it was preempted (the scheduler's record is not quoted here: it may "
        "name other workloads and their queues' figures)"
    )
    return EvidenceLine(text=text, source=signal.source)


def cite_all(signals: Iterable[Signal]) -> list[EvidenceLine]:
    """Every distinct signal, newest fact first, each report of one fact on its own line.

    Reports of the same fact (`diagnosis.facts`) share the fact's key and every source that
    reported it, its most telling report first: the report keeps them all, and people read
    one line per fact. Nothing is left out or counted instead of shown.
    """
    facts = group(unique(signals))
    facts.sort(key=lambda fact: max(s.at or _EPOCH for s in fact), reverse=True)
    lines: list[EvidenceLine] = []
    for fact in facts:
        key = f"{fact[0].kind}:{fact[0].key}"
        sources = tuple(dict.fromkeys(s.source for s in fact))
        for signal in fact:
            line = cite(signal)
            lines.append(
                line.model_copy(
                    update={"sources": sources, "fact": key, "pod": signal.pod, "rank": signal.rank}
                )
            )
    return lines


def latest(signals: Iterable[Signal]) -> datetime | None:
    """The most recent timestamp among signals, or None if none is dated."""
    dated = [s.at for s in signals if s.at is not None]
    return max(dated) if dated else None
