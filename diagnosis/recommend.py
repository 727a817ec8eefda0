"""Next actions: the category's own advice from its registry row, then the recurrence note.

What each category advises lives with its rule (`diagnosis/rules/<category>.py`); this
module only adds what is common to all of them.
"""

from __future__ import annotations

from diagnosis.evidence import Evidence
from diagnosis.report_parts import Recurrence
from diagnosis.rules import Finding, row

__all__ = ["recommendations"]


def recommendations(ev: Evidence, finding: Finding, recurrence: Recurrence) -> list[str]:
    """Category-specific actions, plus a permanent-fix note when the failure recurs."""
    actions = row(finding.category).advise(ev, finding)
    if recurrence.recurring and recurrence.count is not None:
        actions.append(
            f"This failed the same way {recurrence.count} times in the last "
            f"{recurrence.lookback}: make a permanent fix rather than rerunning unchanged."
        )
    return actions
