"""Who took the GPUs: the preemptor a scheduler signal names, else candidates "not confirmed".

Only an eviction text or annotation names a preemptor (`<namespace>/<podgroup>`). Its project
is the project whose namespace that is; its workload is the project's workload of that name,
or (marked as inferred) the one whose name the PodGroup's `pg-<name>-…` name embeds. When
nothing names one, workloads that started in the victim's node pool just after the eviction
are listed as candidates, and the verdict says the preemptor is not determinable. Nothing
but their start ties those to the victim: each is listed only to an asker who may read it
(`timed`), where a preemptor a record names is shown to everyone, masked if need be.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from diagnosis.evidence import Gap
from diagnosis.fetch import gather_gap
from diagnosis.report_facts import Party
from diagnosis.runai.models import Workload
from diagnosis.runai.reader import RunaiReader
from diagnosis.runai.scheduling_models import WorkloadPriority

__all__ = [
    "ANOTHER_PROJECT",
    "CANDIDATE_WINDOW",
    "MAX_CANDIDATES",
    "NOT_FOUND",
    "SAME_PROJECT",
    "UNREAD",
    "candidate_line",
    "candidates",
    "describe",
    "find_preemptor",
    "priority_of",
]

#: Workloads that started this soon after the eviction are candidates.
CANDIDATE_WINDOW = timedelta(minutes=10)
MAX_CANDIDATES = 3
ANOTHER_PROJECT = "a workload in another project"
SAME_PROJECT = "another workload in this project"
#: What the preemptor's line adds when its workload was not found, or could not be read:
#: never shown with a stand-in (whether a workload of that name exists is the party's).
NOT_FOUND = " (no workload of that name)"
UNREAD = " (its workload could not be read)"


def describe(party: Party) -> str:
    """`serve-llama-70b (project nlp, priority 125 (high))`; the stand-in when hidden."""
    if party.hidden:
        return SAME_PROJECT if party.same_project else ANOTHER_PROJECT
    bits = [f"project {party.project}" if party.project else None]
    if party.priority is not None:
        label = f" ({party.priority_class})" if party.priority_class else ""
        bits.append(f"priority {party.priority}{label}")
    detail = ", ".join(b for b in bits if b)
    return f"{party.name} ({detail})" if detail else party.name


def candidate_line(party: Party) -> str:
    """A candidate's evidence line: `Not confirmed (why): <its description>`."""
    return f"Not confirmed ({party.note or 'a candidate'}): {describe(party)}"


def priority_of(workload: Workload, priorities: tuple[WorkloadPriority, ...] | None) -> int | None:
    """Its priority value: the workload's own, else its class's value in the priority list."""
    if workload.priority is not None:
        return workload.priority
    named = {p.name.lower(): p.value for p in priorities or ()}
    return named.get((workload.priority_class_name or "").lower())


def _mentions(
    names: list[str], namespace: str | None, project: str | None, *, same: bool
) -> tuple[tuple[str, str], ...]:
    """Each text that names the party, and the bracketed stand-in a quote gets instead."""
    stand_in = f"[{SAME_PROJECT if same else ANOTHER_PROJECT}]"
    found = {}
    for name in names:
        if namespace:
            found[f"{namespace}/{name}"] = stand_in
        found[name] = stand_in
    if not same:
        for place in (namespace, project):
            if place:
                found.setdefault(place, "[another project]")
    return tuple(sorted(found.items(), key=lambda item: -len(item[0])))


def party(
    workload: Workload | None,
    *,
    podgroup: str,
    namespace: str | None,
    project: str | None,
    victim: Workload,
    priorities: tuple[WorkloadPriority, ...] | None,
    confirmed: bool = True,
) -> Party:
    """A named party; without its workload, only the PodGroup's name (and so hidden)."""
    same = project is not None and project == victim.project_name
    names = [podgroup, *([workload.name] if workload is not None else [])]
    return Party(
        name=workload.name if workload is not None else podgroup,
        project=workload.project_name if workload is not None else project,
        priority=priority_of(workload, priorities) if workload is not None else None,
        priority_class=workload.priority_class_name if workload is not None else None,
        kind=workload.type if workload is not None else None,
        cluster_id=victim.cluster_id,
        confirmed=confirmed,
        same_project=same,
        mentions=_mentions(list(dict.fromkeys(names)), namespace, project, same=same),
    )


def _matching(workloads: list[Workload], podgroup: str) -> Workload | None:
    exact = [w for w in workloads if w.name == podgroup]
    if exact:
        return exact[0]
    embedded = [w for w in workloads if podgroup.startswith(f"pg-{w.name}-")]
    longest = sorted(embedded, key=lambda w: -len(w.name))
    return longest[0] if longest else None


async def find_preemptor(
    runai: RunaiReader,
    victim: Workload,
    namespace: str | None,
    podgroup: str,
    priorities: tuple[WorkloadPriority, ...] | None,
) -> tuple[Party, Workload | None, list[Gap]]:
    """The named preemptor as a `Party`, its workload when found, and the reads that failed."""
    gaps: list[Gap] = []
    project: str | None = None
    if namespace is None or namespace == victim.namespace:
        project = victim.project_name
    else:
        listed = await gather_gap(
            "list_projects",
            "the projects (to find the preemptor's project)",
            runai.list_project_quotas(cluster_id=victim.cluster_id),
        )
        gaps += [listed.gap] if listed.gap else []
        project = next((p.name for p in listed.value or () if p.namespace == namespace), None)
    found: Workload | None = None
    if project is not None:
        workloads = await gather_gap(
            "list_workloads",
            f"the workloads of project {project} (to find the preemptor)",
            runai.list_project_workloads(cluster_id=victim.cluster_id, project=project),
        )
        gaps += [workloads.gap] if workloads.gap else []
        found = _matching(workloads.value or [], podgroup)
    named = party(
        found,
        podgroup=podgroup,
        namespace=namespace,
        project=project,
        victim=victim,
        priorities=priorities,
    )
    return named, found, gaps


async def candidates(
    runai: RunaiReader,
    victim: Workload,
    pool: str | None,
    at: datetime | None,
    priorities: tuple[WorkloadPriority, ...] | None,
) -> tuple[list[Party], list[Gap]]:
    """Workloads that started in the victim's node pool just after the eviction (unconfirmed)."""
    if pool is None or at is None:
        return [], []
    listed = await gather_gap(
        "list_workloads",
        f"the running workloads of node pool {pool} (preemptor candidates)",
        runai.list_pool_workloads(cluster_id=victim.cluster_id, node_pool=pool),
    )
    started = [
        w
        for w in listed.value or ()
        if w.id != victim.id
        and w.phase_updated_at is not None
        and at <= w.phase_updated_at <= at + CANDIDATE_WINDOW
    ]
    started.sort(key=lambda w: w.phase_updated_at or at)
    found = [
        party(
            w,
            podgroup=w.name,
            namespace=w.namespace,
            project=w.project_name,
            victim=victim,
            priorities=priorities,
            confirmed=False,
        ).model_copy(
            update={"note": "started in its node pool just after the eviction", "timed": True}
        )
        for w in started[:MAX_CANDIDATES]
    ]
    return found, [listed.gap] if listed.gap else []
