"""A report shown again to someone other than its asker, cut to what that person may read.

A report is computed for one asker: a preemptor is named only if the asker may read it, and
the blast radius counts and names the other workloads the asker may read. When a teammate
asks for the same answer again ("show all evidence" in the thread), the parties are checked
again with the teammate's access (`diagnosis.preemption.for_asker`), and the blast radius,
which was counted for the asker and cannot be re-counted without reading the node again,
is left out and said to be left out: a gap, never "no other workload ended".
"""

from __future__ import annotations

from diagnosis.access import Authorize
from diagnosis.blast import BLAST_FACT
from diagnosis.preemption import for_asker
from diagnosis.report import Report

__all__ = ["BLAST_NOT_SHOWN", "for_viewer"]

BLAST_NOT_SHOWN = (
    "other workloads ended on the node: counted for the person who asked, not for you "
    '("Check again" counts the ones you can read)'
)


async def for_viewer(report: Report, authorize: Authorize) -> Report:
    """`report` as a person other than its asker may see it (`authorize`: their access)."""
    report = await for_asker(report, authorize)
    kept = tuple(line for line in report.evidence if line.fact != BLAST_FACT)
    if len(kept) == len(report.evidence):
        return report
    fields = {name: value for name, value in report if name != "redactions"}  # counted again
    fields["evidence"] = kept
    fields["missing"] = (*report.missing, BLAST_NOT_SHOWN)
    return Report(**fields)
