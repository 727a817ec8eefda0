"""One report, cut to one asker's access: what it names of others, and departments' figures.

A report is computed once and may be shared by every asker of the workload (`diagnosis.
sharing`), or shown again to someone else (`diagnosis.viewer`). Each person then gets their
own view: a preemptor or candidate they may not read is never named, nor a department's
quota and usage they may not read (a preemption's reclaim line, a Pending answer's figures).
"""

from __future__ import annotations

from diagnosis.access import Authorize
from diagnosis.pending.visibility import for_department_reader
from diagnosis.preemption import for_asker as preemption_for_asker
from diagnosis.report import Report

__all__ = ["for_asker"]


async def for_asker(report: Report, authorize: Authorize | None) -> Report:
    """`report` as this asker may see it (`authorize`: their access; None: everything)."""
    return await preemption_for_asker(await for_department_reader(report, authorize), authorize)
