"""Whether a workload may be preempted: its flag, else its priority; one judgement for all.

The Pending answer (may it go over quota?) and the preemption answer (was a protection
broken? is the kind consistent?) read it the same way (reference §5.4): `preemptible` when
the API gives it, else its priority (100 and above is non-preemptible), else not known.
"""

from __future__ import annotations

from dataclasses import dataclass

from diagnosis.runai.models import Workload

__all__ = ["NON_PREEMPTIBLE_PRIORITY", "Preemptibility", "preemptibility"]

#: Priority values at or above this are non-preemptible when preemptibility is not set.
NON_PREEMPTIBLE_PRIORITY = 100


@dataclass(frozen=True)
class Preemptibility:
    """Whether the workload could be preempted (None: not known), and what says so."""

    preemptible: bool | None
    why: str

    def describe(self) -> str:
        """`preemptible`, `non-preemptible (priority 125 >= 100, no preemptible flag)`, ..."""
        if self.preemptible is None:
            return "preemptibility unknown"
        said = "preemptible" if self.preemptible else "non-preemptible"
        return said if self.why.startswith("preemptible:") else f"{said} ({self.why})"


def preemptibility(workload: Workload) -> Preemptibility:
    """`preemptible` when given, else its priority (100 and above is non-preemptible), else None.

    The one judgement the table, the protections and the report all use (reference §5.4).
    """
    if workload.preemptible is not None:
        flag = "true" if workload.preemptible else "false"
        return Preemptibility(workload.preemptible, f"preemptible: {flag}")
    p = workload.priority
    if p is None:
        return Preemptibility(None, "neither its preemptible flag nor its priority was read")
    movable = p < NON_PREEMPTIBLE_PRIORITY
    sign = "<" if movable else ">="
    return Preemptibility(
        movable, f"priority {p} {sign} {NON_PREEMPTIBLE_PRIORITY}, no preemptible flag"
    )
