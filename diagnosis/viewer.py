"""A report shown again to someone other than its asker, cut to what that person may read.

A report is computed for one asker: a preemptor is named only if the asker may read it, a
department's quota and usage shown only if they may read that department, the blast radius
counts and names the other workloads the asker may read, and the comparison is with the last
good run the asker may read (same name and project, but maybe another kind). When a teammate
asks for the same answer again ("show all evidence" in the thread), the parties and the
departments are checked again with the teammate's access (`diagnosis.asker.for_asker`), and
so is the run compared with: one they may not read (or one that cannot be checked) is
left out. The blast radius, which was counted for the asker and cannot be re-counted
without reading the node again, is left out too. Each omission is said, without naming
anything: a gap, never "no other workload ended" or "nothing changed".
"""

from __future__ import annotations

from diagnosis.access import Authorize, WorkloadAccess
from diagnosis.asker import for_asker
from diagnosis.blast import BLAST_FACT
from diagnosis.report import Report
from diagnosis.report_parts import Changes

__all__ = ["BLAST_NOT_SHOWN", "CHANGES_NOT_SHOWN", "for_viewer"]

BLAST_NOT_SHOWN = (
    "other workloads ended on the node: counted for the person who asked, not for you "
    '("Check again" counts the ones you can read)'
)
CHANGES_NOT_SHOWN = (
    "what changed since the last good run: compared for the person who asked, not for you "
    '("Check again" compares with the last one you can read)'
)


async def _readable(changes: Changes, authorize: Authorize) -> bool:
    """Whether the viewer may read the run compared with; one that cannot be checked: no."""
    cluster, project, kind = changes.since_cluster_id, changes.since_project, changes.since_kind
    if cluster is None or project is None or kind is None:
        return False  # a report stored before the run's kind was kept
    return await authorize(WorkloadAccess(cluster, project, kind))


async def for_viewer(report: Report, authorize: Authorize) -> Report:
    """`report` as a person other than its asker may see it (`authorize`: their access)."""
    report = await for_asker(report, authorize)
    kept = tuple(line for line in report.evidence if line.fact != BLAST_FACT)
    blast = len(kept) < len(report.evidence)
    changes = report.changes
    hidden = changes is not None and not await _readable(changes, authorize)
    if not (blast or hidden):
        return report
    fields = {name: value for name, value in report if name != "redactions"}  # counted again
    fields["evidence"] = kept
    fields["changes"] = None if hidden else changes
    said = [text for text, out in ((BLAST_NOT_SHOWN, blast), (CHANGES_NOT_SHOWN, hidden)) if out]
    fields["missing"] = (*report.missing, *said)
    return Report(**fields)
