"""What surrounds a diagnosed failure, as this asker may see it: changes and blast radius.

Both depend on who asks: the last good run is compared only if the asker may read it, and
only the workloads the asker may read are counted on a failed node. So they are added to
the report after it is computed (or taken from the ones shared by concurrent askers), for
each asker. Their reads are shared by their arguments like the resolution's (`"lookup"`),
so a storm of askers reads Run:ai once; what each asker sees is decided by its own
access check. A read that fails is a gap in the report, never a silent drop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TypeVar

from pydantic import TypeAdapter

from diagnosis.access import Authorize, readable
from diagnosis.blast import NodePods, blast_radius
from diagnosis.changes import compare, earlier_good_runs
from diagnosis.errors import UpstreamError
from diagnosis.evidence import Gap
from diagnosis.fetch import gap_for, within_deadline
from diagnosis.report import EvidenceLine, Outcome, Report
from diagnosis.report_parts import Changes
from diagnosis.rules import row
from diagnosis.runai.models import Pod, Workload, WorkloadSpec
from diagnosis.runai.reader import RunaiReader
from diagnosis.sharing import Share, shared_lookup

__all__ = ["Surroundings"]

T = TypeVar("T")
_SPEC = TypeAdapter(WorkloadSpec)
_PODS = TypeAdapter(list[Pod])


class _Reads:
    """The reads `surround` makes, shared by their arguments when a `Share` is given."""

    def __init__(self, runai: RunaiReader, share: Share | None) -> None:
        self.runai = runai
        self._share = share
        self.node_pods = runai if isinstance(runai, NodePods) else None

    async def _shared(
        self, key: str, call: Callable[[], Awaitable[T]], adapter: TypeAdapter[T]
    ) -> T:
        if self._share is None:
            return await call()
        return await shared_lookup(self._share, key, call, adapter)

    async def spec(self, workload: Workload) -> WorkloadSpec:
        """`get_workload_spec` of `workload` (shared by its ID)."""
        return await self._shared(
            f"get_workload_spec|{workload.id}",
            lambda: self.runai.get_workload_spec(workload),
            _SPEC,
        )

    async def list_node_pods(
        self, *, cluster_id: str, node: str, start: datetime, end: datetime
    ) -> list[Pod]:
        """See `NodePods.list_node_pods` (shared by its arguments)."""
        pods = self.node_pods
        if pods is None:
            return []

        def call() -> Awaitable[list[Pod]]:
            return pods.list_node_pods(cluster_id=cluster_id, node=node, start=start, end=end)

        key = f"list_node_pods|{cluster_id}|{node}|{start.isoformat()}|{end.isoformat()}"
        return await self._shared(key, call, _PODS)


async def _submissions(workload: Workload, lookups: RunaiReader) -> list[Workload]:
    """The workloads of the same name in the same project and cluster (`list_workloads`)."""
    project = workload.project_name or ""
    listing = lookups.list_workloads(
        cluster_id=workload.cluster_id, project=project, name=workload.name
    )
    return await within_deadline(listing, "list_workloads")


async def _changes(
    workload: Workload,
    reads: _Reads,
    lookups: RunaiReader,
    *,
    authorize: Authorize | None,
    cutoff: datetime,
    submissions: tuple[Workload, ...] | None,
) -> tuple[Changes | None, Gap | None]:
    """The comparison with the last good run the asker may read, or None when there is none.

    The submissions of the name are those resolution listed when it did (by name), else
    they are listed now.
    """
    if workload.project_name is None:
        return None, None
    try:
        listed = (
            list(submissions) if submissions is not None else await _submissions(workload, lookups)
        )
    except UpstreamError as error:
        return None, gap_for("list_workloads", f"earlier submissions of {workload.name}", error)
    mine = await readable(earlier_good_runs(workload, listed, cutoff=cutoff), authorize)
    if not mine:
        return None, None
    good = mine[0]
    try:
        failed_spec, good_spec = await asyncio.gather(reads.spec(workload), reads.spec(good))
    except UpstreamError as error:
        return None, gap_for(
            "get_workload_spec", f"the submitted specs to compare with {good.name}", error
        )
    changes = Changes(
        since_id=good.id,
        since_name=good.name,
        since_at=good.phase_updated_at,
        since_phase=good.phase,
        items=tuple(compare(good_spec, good, failed_spec, workload)),
        since_cluster_id=good.cluster_id,
        since_project=good.project_name,
        since_kind=good.type,
    )
    return changes, None


async def _blast(
    report: Report,
    workload: Workload,
    reads: _Reads,
    lookups: RunaiReader,
    authorize: Authorize | None,
) -> tuple[EvidenceLine | None, Gap | None]:
    node = report.details.get("node")
    if (
        report.category is None
        or not row(report.category).blast_radius
        or not isinstance(node, str)
    ):
        return None, None
    if reads.node_pods is None:  # a reader that cannot list a node's pods
        return None, Gap(source="get_workload_pods", what="other workloads on the node: not read")
    return await blast_radius(workload, node, pods=reads, runai=lookups, authorize=authorize)


@dataclass
class Surroundings:
    """What one asker may see around one diagnosis, read alongside it.

    `start` begins the comparison with the last good run as soon as the workload is
    resolved (it needs nothing the diagnosis finds), so its reads add no wait to the
    answer; `add` puts it and the node's blast radius (which needs the verdict) into the
    diagnosed report, and `cancel` drops what is not needed.
    """

    workload: Workload
    runai: RunaiReader
    lookups: RunaiReader
    share: Share | None
    authorize: Authorize | None
    cutoff: datetime
    submissions: tuple[Workload, ...] | None = None
    _changes: asyncio.Future[tuple[Changes | None, Gap | None]] | None = None

    def start(self) -> None:
        """Start reading the last good run, alongside the diagnosis."""
        reads = _Reads(self.runai, self.share)
        self._changes = asyncio.ensure_future(
            _changes(
                self.workload,
                reads,
                self.lookups,
                authorize=self.authorize,
                cutoff=self.cutoff,
                submissions=self.submissions,
            )
        )

    def cancel(self) -> None:
        """Stop the reads still running (the report is not a diagnosis, or it failed)."""
        if self._changes is not None:
            self._changes.cancel()

    async def add(self, report: Report) -> Report:
        """The report with what changed since the last good run and the node's blast radius.

        Only a diagnosed report gets them; any other is returned as it is.
        """
        if report.outcome is not Outcome.DIAGNOSED or self._changes is None:
            self.cancel()
            return report
        reads = _Reads(self.runai, self.share)
        (changes, lost), (line, unread) = await asyncio.gather(
            self._changes, _blast(report, self.workload, reads, self.lookups, self.authorize)
        )
        gaps = [g.what for g in (lost, unread) if g is not None]
        if changes is None and line is None and not gaps:
            return report
        fields = {name: value for name, value in report if name != "redactions"}  # counted again
        fields["evidence"] = (*report.evidence, *([line] if line else []))
        fields["missing"] = (*report.missing, *gaps)
        fields["changes"] = changes
        return Report(**fields)
