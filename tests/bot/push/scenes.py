"""The world the push tests change: demo workloads failing now, through the control endpoint."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx

from bot.app.demo.scenarios import bundled_scenario
from runai_sim.scenario_parts import WorkloadEntry

__all__ = ["DEMO", "failing", "put_workload"]

DEMO = bundled_scenario("demo").model_copy(deep=True)  # the tests change their own copies
OOM_ID = "f0658dcc-8ddb-493b-b983-99894f206aea"  # training-job-42 in ml-team: OOM_KILLED
NLP_ID = "4feb5d77-98a1-4328-ab28-01b9b1bf75b4"  # bert-ft-squad in nlp


def failing(
    workload_id: str, *, new_id: str | None = None, at: datetime | None = None
) -> WorkloadEntry:
    """The demo entry `workload_id`, Failed now (or at `at`), under `new_id` if given."""
    entry = DEMO.workload(workload_id)
    assert entry is not None, workload_id
    moment = (at or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    workload: dict[str, Any] = {
        **entry.workload,
        "id": new_id or workload_id,
        "phase": "Failed",
        "phaseUpdatedAt": moment,
    }
    return entry.model_copy(update={"workload": workload})


async def put_workload(runai_url: str, entry: WorkloadEntry) -> None:
    """Add or replace `entry` through the simulator's control endpoint."""
    async with httpx.AsyncClient(base_url=runai_url, timeout=10) as client:
        response = await client.put(
            f"/_sim/workloads/{entry.id}", content=entry.model_dump_json(exclude_none=False)
        )
    assert response.status_code in {200, 201}, response.text
