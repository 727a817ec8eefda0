"""Per asker: a department's quota and usage only for whoever may read that department.

A department's figures sum its projects', which reading one project's workloads does not
cover. A Pending answer reads them only for an asker who may see them, and quotes what the
scheduler says of them (a typed reason at the department's level) only to them; such an
answer carries the same answer decided without them (`Report.without_department`, see
`withheld`). Anyone else it is shown to (a teammate's "show all evidence") gets that one, so
the department is a named gap for them too, never a figure they may not see.
"""

from __future__ import annotations

from diagnosis.access import Authorize, may_read_department
from diagnosis.report import Report

__all__ = ["for_department_reader"]


async def for_department_reader(report: Report, authorize: Authorize | None) -> Report:
    """`report` as this asker may see it: without its department's figures unless they may."""
    held = report.without_department
    if held is None or await may_read_department(authorize, held.cluster_id, held.department_id):
        return report
    return held.report
