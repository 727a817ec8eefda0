"""What the Pending answer knows: the reads, and each scheduler statement with its age.

Collection fills a `PendingEvidence`; the rules only read it. Every scheduler statement
(`Said`) is kept with where it came from and when; `sayings` splits them into the ones that
describe the current wait and the stale ones, which are never trusted: written before the
workload last became Pending, or a PodGroup condition while some of its pods hold resources
(the scheduler stops updating it then).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict

from diagnosis.evidence import Gap, Signal
from diagnosis.kube.models import Pod as KubePod
from diagnosis.kube.scheduling_models import PodGroup
from diagnosis.pending.texts import FitPart, Saying, fit_parts, read_text
from diagnosis.redact import quote
from diagnosis.request import DiagnosisRequest
from diagnosis.runai.models import Event, HistoryRecord, Node, Pod, Workload
from diagnosis.runai.scheduling_models import DepartmentQuota, NodePool, ProjectQuota, Telemetry

__all__ = ["PendingEvidence", "PoolList", "Said", "pending_since", "sayings"]

STATUS = "get_workload_status"
HISTORY = "get_workload_history"
_POOL_PREFIX = re.compile(r"^Node-Pool '(?P<pool>[^']+)':\s*")
#: Whose node-pool list the scheduler follows: the workload's own, or its project's defaults.
PoolList = Literal["workload", "project"]


class Said(BaseModel):
    """One statement of the scheduler about this workload.

    Attributes:
        saying: what it says; values: the numbers and names it carries.
        node_pool: the node pool it is about (None: not said).
        at: when it was written (None: a status field, current by definition).
        source: the citation; origin: where in that response.
        text: the quoted statement (redacted, shortened).
        fit: what a fit-error histogram in it blames.
        org_type: `PROJECT` or `DEPARTMENT` when the typed reason says which level.
        condition: a PodGroup scheduling condition (stale while pods are allocated).
        withheld: its words and numbers are a department's, cut out for whoever may not read
            that department (`withheld.without_department`): only its request is left.
    """

    model_config = ConfigDict(frozen=True)

    saying: Saying
    values: dict[str, str] = {}
    node_pool: str | None = None
    at: datetime | None = None
    source: str
    origin: str
    text: str
    fit: frozenset[FitPart] = frozenset()
    org_type: str | None = None
    condition: bool = False
    withheld: bool = False


class PendingEvidence(BaseModel):
    """Everything read for one Pending workload; None means "could not be read" (see gaps).

    `department_withheld`: the workload has (or may have) a department, whose quota and usage
    were not read because the asker may not see them (`collect`): unknown, never a gap to
    read again.
    """

    model_config = ConfigDict(frozen=True)

    request: DiagnosisRequest
    now: datetime
    workload: Workload
    signals: tuple[Signal, ...] = ()
    events: tuple[Event, ...] | None = None
    pods: tuple[Pod, ...] | None = None
    history: tuple[HistoryRecord, ...] | None = None
    project: ProjectQuota | None = None
    department: DepartmentQuota | None = None
    department_withheld: bool = False
    node_pools: tuple[NodePool, ...] | None = None
    free: Telemetry | None = None
    total: Telemetry | None = None
    pool_nodes: dict[str, tuple[Node, ...]] = {}
    podgroup: PodGroup | None = None
    queue_missing: str | None = None
    kube_pods: tuple[KubePod, ...] | None = None
    said: tuple[Said, ...] = ()
    stale: tuple[Said, ...] = ()
    since: datetime | None = None
    tier2: bool = False
    gaps: tuple[Gap, ...] = ()

    def pools(self) -> list[str]:
        """The node pools to explain: requested, else the project's defaults, else named ones."""
        listed, _ = self.pool_order()
        return listed or list(dict.fromkeys(s.node_pool for s in self.said if s.node_pool))

    def pool_order(self) -> tuple[list[str], PoolList | None]:
        """The node pools in the order the scheduler tries them, and whose list that is.

        The workload's own list, else its project's defaults; ([], None) when neither names any.
        """
        if self.workload.requested_node_pools:
            return list(self.workload.requested_node_pools), "workload"
        effective = self.project.effective if self.project else None
        if effective and effective.default_node_pools:
            return list(effective.default_node_pools), "project"
        return [], None

    def saying(self, *kinds: Saying, pool: str | None = None) -> list[Said]:
        """Current statements of these kinds about `pool` (see `about`), the deciding one first.

        The most informative decides: one carrying the scheduler's own values (its figures,
        the queue it names) before a bare reason code, since its figures win over recomputed
        ones; a phase reason without numbers never hides the figures a status message gives.
        Then the newest, a status field (no time) being current by definition.
        """
        found = [
            s for s in self.said if s.saying in kinds and (pool is None or self.about(s, pool))
        ]
        return sorted(found, key=_deciding, reverse=True)

    def about(self, said: Said, pool: str) -> bool:
        """Whether `said` is about `pool`: it names it, or names none and is no other pool's.

        A statement that names no pool (the phase reason, most events) is the same wait seen
        without its pool when a statement of its kind names one (a pending scheduling message,
        a `Node-Pool` prefix, a PodGroup condition): it is about the pools those name, never
        another requested pool. Only when none of its kind names a pool is it about every one.
        """
        if said.node_pool is not None:
            return said.node_pool == pool
        named = {s.node_pool for s in self.said if s.saying is said.saying and s.node_pool}
        return not named or pool in named


def _deciding(said: Said) -> tuple[bool, bool, datetime]:
    """The sort key (greatest decides): carries values, then current (no time), then newest."""
    return bool(said.values), said.at is None, said.at or datetime.min.replace(tzinfo=UTC)


def pending_since(workload: Workload, history: Iterable[HistoryRecord] | None) -> datetime | None:
    """When the workload last became Pending (history, else `phaseUpdatedAt` while Pending)."""
    into = [
        r.at
        for r in history or ()
        if r.spec.phase_update is not None and r.spec.phase_update.phase.lower() == "pending"
    ]
    if into:
        return max(into)
    return workload.phase_updated_at if (workload.phase or "").lower() == "pending" else None


def _said(
    reason: str | None,
    message: str | None,
    *,
    at: datetime | None,
    source: str,
    origin: str,
    pool: str | None = None,
    org_type: str | None = None,
    condition: bool = False,
) -> Said | None:
    text = message or ""
    prefix = _POOL_PREFIX.match(text)
    if prefix:
        pool, text = pool or prefix.group("pool"), text[prefix.end() :]
    read = read_text(reason, text)
    if read is None:
        return None
    saying, values = read
    shown = f"{reason}: {text}" if reason and text else (reason or text)
    return Said(
        saying=saying,
        values=values,
        node_pool=pool,
        at=at,
        source=source,
        origin=origin,
        text=quote(shown, 400),
        fit=frozenset(fit_parts(text)),
        org_type=org_type,
        condition=condition,
    )


def _tier1(
    workload: Workload, events: Iterable[Event], history: Iterable[HistoryRecord]
) -> Iterator[Said | None]:
    for message in workload.pending_scheduling_messages or ():
        yield _said(
            message.phase_reason,
            message.user_message or message.reason,
            at=None,
            source=STATUS,
            origin="pending scheduling message",
            pool=message.node_pool,
            org_type=message.org_type,
        )
    if (workload.phase or "").lower() == "pending":
        yield _said(
            workload.phase_reason,
            workload.phase_message,
            at=workload.phase_updated_at,
            source=STATUS,
            origin="phase message",
        )
    for event in events:
        yield _said(event.reason, event.message, at=event.created_at, source=STATUS, origin="event")
    for record in history:
        recorded = record.spec.event
        if recorded is not None:
            yield _said(
                recorded.reason,
                recorded.message,
                at=record.at,
                source=HISTORY,
                origin="history event",
            )


def _podgroup(group: PodGroup, source: str) -> Iterator[Said | None]:
    for condition in group.conditions_newest_first():
        reasons = condition.reasons or ()
        pairs = [(r.reason, r.message, r.queue_details()) for r in reasons] or [
            (condition.reason, condition.message, {})
        ]
        for reason, message, details in pairs:
            said = _said(
                reason,
                message,
                at=condition.last_transition_time,
                source=source,
                origin=f"PodGroup {group.name} condition (node pool {condition.node_pool or '?'})",
                pool=condition.node_pool,
                condition=True,
            )
            if said is not None and details:
                said = said.model_copy(update={"values": {**_queue_values(details), **said.values}})
            yield said


def _queue_values(details: dict[str, object]) -> dict[str, str]:
    """The GPU figures of a condition's `queueDetails` (the scheduler's numbers at the time)."""
    names = {
        "queueDeservedResources": "deserved",
        "queueAllocatedResources": "allocated",
        "queueAllocatedNonPreemptibleResources": "allocated_np",
        "queueResourceLimits": "limit",
        "podGroupRequestedResources": "requested",
    }
    values: dict[str, str] = {}
    for key, name in names.items():
        resources = details.get(key)
        gpu = (
            resources.get("nvidia.com/gpu", resources.get("gpu"))
            if isinstance(resources, dict)
            else None
        )
        if isinstance(gpu, int | float | str) and not isinstance(gpu, bool):
            values[name] = str(gpu)
    return values


def _newer(one: Said, other: Said) -> bool:
    """Whether `one` is the newer statement (a status field is current, so newest)."""
    if one.at is None or other.at is None:
        return other.at is not None
    return one.at > other.at


def _merged(one: Said, other: Said) -> Said:
    """One statement seen twice (an event and a condition): the newer, with what either knew."""
    newer, older = (one, other) if _newer(one, other) else (other, one)
    return newer.model_copy(
        update={
            "node_pool": newer.node_pool or older.node_pool,
            "values": {**older.values, **newer.values},
        }
    )


def sayings(
    workload: Workload,
    events: Iterable[Event],
    history: Iterable[HistoryRecord],
    *,
    since: datetime | None,
    podgroup: PodGroup | None = None,
    podgroup_source: str = "",
    kube: Iterable[tuple[str | None, str | None, datetime | None, str, str]] = (),
) -> tuple[list[Said], list[Said]]:
    """(current, stale) scheduler statements, one per distinct text, newest kept."""
    found: list[Said | None] = list(_tier1(workload, events, history))
    if podgroup is not None:
        found.extend(_podgroup(podgroup, podgroup_source))
    for reason, message, at, source, origin in kube:
        found.append(_said(reason, message, at=at, source=source, origin=origin))
    allocated = (workload.running_pods or 0) > 0 or (podgroup is not None and podgroup.allocates)
    current: dict[tuple[Saying, str], Said] = {}
    stale: dict[tuple[Saying, str], Said] = {}
    for said in found:
        if said is None:
            continue
        old = (said.at is not None and since is not None and said.at < since) or (
            said.condition and allocated
        )
        bucket = stale if old else current
        key = (said.saying, said.text.split(": ", 1)[-1].lower())
        kept = bucket.get(key)
        bucket[key] = said if kept is None else _merged(said, kept)
    return list(current.values()), [s for k, s in stale.items() if k not in current]
