"""Whether the victim could be preempted: one judgement, from the flag, else the priority."""

from __future__ import annotations

from typing import Any

import pytest

from diagnosis.preemptibility import preemptibility
from tests.diagnosis.preemption import builders as b


@pytest.mark.parametrize(
    ("victim", "preemptible", "said"),
    [
        pytest.param({"preemptible": True, "priority": 125}, True, "preemptible", id="flag-true-wins"),
        pytest.param({"preemptible": False, "priority": 50}, False, "non-preemptible", id="flag-false-wins"),
        pytest.param({"preemptible": None, "priority": 125}, False, "non-preemptible (priority 125 >= 100, no preemptible flag)", id="priority-125"),
        pytest.param({"preemptible": None, "priority": 100}, False, "non-preemptible (priority 100 >= 100, no preemptible flag)", id="priority-100"),
        pytest.param({"preemptible": None, "priority": 50}, True, "preemptible (priority 50 < 100, no preemptible flag)", id="priority-50"),
        pytest.param({"preemptible": None, "priority": None}, None, "preemptibility unknown", id="neither-read"),
    ],
)  # fmt: skip
def test_preemptibility_from_the_flag_else_the_priority(
    victim: dict[str, Any], preemptible, said: str
):
    found = preemptibility(b.victim(**victim))
    assert found.preemptible is preemptible
    assert found.describe() == said
