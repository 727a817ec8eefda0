"""The one node pool the victim ran in, or why not: several or none is never "all pools".

Current, else the one requested, else the project's one default pool.
"""

from __future__ import annotations

from typing import Any

import pytest

from diagnosis.preemption.pool import needs_project, victim_pool
from diagnosis.runai.scheduling_models import ProjectQuota
from tests.diagnosis.preemption import builders as b


def _project(defaults: list[str] | None) -> ProjectQuota:
    effective = None if defaults is None else {"defaultNodePools": defaults}
    return ProjectQuota.model_validate({"id": "3", "name": "ml-team", "effective": effective})


NONE: dict[str, Any] = {"requestedNodePools": [], "currentNodePools": []}

CASES: list[Any] = [
    pytest.param({"currentNodePools": ["h100"]}, None, False, "h100", None, id="current"),
    pytest.param({"currentNodePools": ["a", "a"]}, None, False, "a", None, id="current-repeated"),
    pytest.param({"currentNodePools": ["a", "b"]}, None, False, None, "runs in several node pools (a, b)", id="current-several"),
    pytest.param({}, None, False, "default", None, id="requested-one"),
    pytest.param({"requestedNodePools": ["a", "b"]}, _project(["a"]), True, None, "requested several node pools (a, b)", id="requested-several-no-guess"),
    pytest.param(NONE, _project(["default"]), True, "default", None, id="project-default"),
    pytest.param(NONE, _project(["a", "b"]), True, None, "its project has several default pools (a, b)", id="project-several-defaults"),
    pytest.param(NONE, _project([]), True, None, "its project lists no default pool", id="project-no-default"),
    pytest.param(NONE, _project(None), True, None, "its project lists no default pool", id="project-no-effective"),
    pytest.param(NONE, None, True, None, "its project could not be read", id="project-unread"),
    pytest.param(NONE, None, False, None, "it names no project", id="no-project"),
]  # fmt: skip


@pytest.mark.parametrize(("victim", "project", "read", "pool", "why"), CASES)
def test_the_pool_it_ran_in_or_why_not(
    victim: dict[str, Any],
    project: ProjectQuota | None,
    read,
    pool: str | None,
    why: str | None,
):
    found = victim_pool(b.victim(**victim), project, project_read=read)
    assert found.pool == pool
    if why is None:
        assert found.unknown_why is None
    else:
        assert found.unknown_why is not None
        assert why in found.unknown_why


@pytest.mark.parametrize(
    ("victim", "needed"),
    [({}, False), ({"currentNodePools": ["a"], "requestedNodePools": []}, False), (NONE, True)],
)
def test_the_project_is_read_only_when_the_workload_names_no_pool(victim: dict[str, Any], needed):
    assert needs_project(b.victim(**victim)) is needed
