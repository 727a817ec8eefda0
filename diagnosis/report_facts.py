"""The typed facts of a Pending or preemption answer, carried by the `Report`, and their JSON.

`PendingFacts` holds one set of figures for the node pool the verdict is about; every figure
is None when it was not read (never zero). `PreemptionFacts` names the preemptor only as a
`Party`, which the pipeline hides from an asker who may not read it (`hidden`): its JSON then
keeps the shape with every member null, and its `mentions` were masked in the report's text.
Likewise the department queues of the scheduler's reclaim line (`QueueFigures`), whose
figures sum other projects': hidden from an asker who may not read that department.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict

from diagnosis.moments import ISO, utc_text

__all__ = ["Party", "PendingFacts", "PreemptionFacts", "QueueFigures"]


def _iso(moment: datetime | None) -> str | None:
    return utc_text(moment, ISO) if moment is not None else None


class _Facts(BaseModel):
    model_config = ConfigDict(frozen=True)


class PendingFacts(_Facts):
    """Why a workload is Pending: the reason identifier and the figures behind it.

    Attributes:
        reason: the dominant Pending reason (`docs/pending-and-preemption.md`).
        node_pool: the node pool the reason and the figures are about.
        requested_gpus: the workload's GPU request.
        deserved_gpus, limit_gpus: the project's quota and limit in that pool (a limit of
            None is not read, or unlimited: the evidence says which).
        allocated_gpus, allocated_non_preemptible_gpus: what the project holds there now.
        pool_free_gpus, pool_total_gpus: the pool's capacity now (node telemetry).
        pending_since: when the workload last became Pending.
    """

    reason: str
    node_pool: str | None = None
    requested_gpus: float | None = None
    deserved_gpus: float | None = None
    limit_gpus: float | None = None
    allocated_gpus: float | None = None
    allocated_non_preemptible_gpus: float | None = None
    pool_free_gpus: float | None = None
    pool_total_gpus: float | None = None
    pending_since: datetime | None = None

    def to_json(self) -> dict[str, Any]:
        """The `pending` object of `--json`."""
        data = self.model_dump(mode="json")
        data["pending_since"] = _iso(self.pending_since)
        return data


class Party(_Facts):
    """A workload the preemption answer names: the preemptor, or a candidate.

    Attributes:
        name: the workload's name (the PodGroup's when no workload was found for it).
        project: its project.
        priority: its priority value; priority_class its class name.
        kind: its workload type, for the asker's access check (None: not found, so hidden).
        cluster_id: its cluster.
        confirmed: a scheduler signal names it (False: only a candidate by timing).
        same_project: it is in the victim's project.
        mentions: each text that names it and what stands for it when hidden.
        note: why it is only a candidate (empty for a confirmed preemptor).
        timed: only timing ties it to the eviction (it started in the victim's pool just
            after; no record names it): one the asker may not read is left out, not masked.
        hidden: the asker may not read it; its name was masked everywhere.
    """

    name: str
    project: str | None = None
    priority: int | None = None
    priority_class: str | None = None
    kind: str | None = None
    cluster_id: str
    confirmed: bool = True
    same_project: bool = False
    mentions: tuple[tuple[str, str], ...] = ()
    note: str = ""
    timed: bool = False
    hidden: bool = False

    def to_json(self) -> dict[str, Any]:
        """`{name, project, priority}`; all null when hidden from this asker."""
        if self.hidden:
            return {"name": None, "project": None, "priority": None}
        return {"name": self.name, "project": self.project, "priority": self.priority}


class QueueFigures(_Facts):
    """A department's queue figures the preemption answer shows (the scheduler's reclaim line).

    A department's use and quota sum its projects': they are shown only to an asker who may
    read that department, and hidden (`hidden`) from anyone else, everywhere the answer
    gives them. Not in `--json`.

    Attributes:
        whose: `victim` (this workload's department) or `reclaimer` (the preemptor's).
        cluster_id: the cluster.
        department_id: the department it is (or may be) the queue of; None: not known, so
            it cannot be checked and is hidden from every asker who is checked.
        queue: the queue's name as the scheduler wrote it (its line in a quoted record is
            `<queue> uses …`).
        stand_in: what stands for that line when hidden.
        mentions: each other text of the answer that gives its figures, and what stands for
            it when hidden (empty: the text is dropped).
        withheld: what the answer says was not shown, when hidden.
        hidden: hidden from this asker; nothing of it is left here.
    """

    whose: str
    cluster_id: str
    department_id: str | None = None
    queue: str = ""
    stand_in: str = ""
    mentions: tuple[tuple[str, str], ...] = ()
    withheld: str = ""
    hidden: bool = False


class PreemptionFacts(_Facts):
    """Who preempted the workload, how, and whether that was fair.

    Attributes:
        kind: the preemption kind (`docs/pending-and-preemption.md`).
        at: when it was evicted.
        by: the preemptor, only when a scheduler signal names it.
        candidates: workloads that only timing suggests ("not confirmed").
        victim_over_quota: whether the victim's project was over its quota at the time
            (the scheduler's own line, or metrics around that time); None when unknown.
        protection_violated: whether a protection that should have applied (non-preemptible,
            guaranteed runtime) was broken; None when it cannot be told.
        count: preemptions within the lookback; None when history could not be read.
        queues: the department queues whose figures it shows (see `QueueFigures`).
    """

    kind: str
    at: datetime | None = None
    by: Party | None = None
    candidates: tuple[Party, ...] = ()
    victim_over_quota: bool | None = None
    protection_violated: bool | None = None
    count: int | None = None
    queues: tuple[QueueFigures, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The `preemption` object of `--json`."""
        return {
            "kind": self.kind,
            "at": _iso(self.at),
            "by": self.by.to_json() if self.by else None,
            "victim_over_quota": self.victim_over_quota,
            "protection_violated": self.protection_violated,
            "count": self.count,
        }
