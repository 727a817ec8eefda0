"""A Pending workload the scheduler says is over its department's limit, with its figures.

Scenario `pending-department-over-quota` (llama-8b-eval in ml-team, department ml-platform,
id 1), with the scheduler's typed reason at the department's level: its status's phase
reason and pending scheduling message (`orgType: DEPARTMENT`), and its events, all giving
the department's limit and usage. Those figures sum other projects': no bundled scenario
has them, so the tests of every path that carries them build it here.
"""

from __future__ import annotations

from bot.app.demo.scenarios import bundled_scenario
from runai_sim.scenario import Scenario

__all__ = ["FIGURES", "LIMIT_SAID", "ML_PLATFORM", "WORKLOAD_ID", "over_department_limit"]

ML_PLATFORM = "1"
WORKLOAD_ID = "2816f8f8-5574-5784-99f2-3fae4a1754bb"
LIMIT_SAID = (
    "ml-platform quota has reached the allowable limit of GPUs. Limit is 12 GPUs, currently "
    "14 GPUs allocated and workload requested 4 GPUs"
)
#: The department's figures as an answer could carry them (the scheduler's and its own read).
FIGURES = ("Limit is 12", "limit 12", "currently 14", "allocated 14", "14 of 8", "get_department")


def over_department_limit() -> Scenario:
    """The scenario with its scheduler's statements those of the department's limit."""
    scenario = bundled_scenario("pending-department-over-quota")
    workloads = [w.model_copy(deep=True) for w in scenario.workloads]
    for entry in workloads:
        typed = {
            "nodePool": "default",
            "phaseReason": "OverLimit",
            "reason": "Over limit",
            "orgType": "DEPARTMENT",
            "userMessage": LIMIT_SAID,
        }
        entry.workload.update(
            {
                "phaseReason": "OverLimit",
                "phaseMessage": LIMIT_SAID,
                "pendingSchedulingMessages": [typed],
            }
        )
        events = [*(entry.events or ()), *(r["spec"].get("event") or {} for r in entry.history)]
        for record in events:
            if "message" in record:
                record.update({"reason": "OverLimit", "message": LIMIT_SAID})
    return scenario.model_copy(update={"workloads": workloads})
