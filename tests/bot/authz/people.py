"""The people of the entry-point tables: the demo's access model, plus two more Run:ai users.

- bob@acme.ai reads every kind of workload everywhere (tenant Viewer): allowed;
- alice@acme.ai has a rule on nlp whose role reads no workloads: denied by project;
- dave@acme.ai reads only inference workloads in nlp: denied by kind for its trainings and
  workspaces (`jupyter-alice` is a Workspace);
- erin@acme.ai starts as a Viewer of nlp; `limit` changes her rule in the scenario a running
  simulator serves, for "their access changed since the answer" (the bot must then be run
  with `AUTHZ_CACHE_TTL_S=0`, or it would answer from its cache for a minute).
"""

from __future__ import annotations

import copy
from enum import Enum
from typing import Any

from bot.app.demo.scenarios import bundled_scenario
from runai_sim.scenario import Scenario

__all__ = [
    "ACCESS",
    "BY_ID",
    "BY_NAME",
    "CATEGORY",
    "ENDS",
    "ERIN",
    "NLP_PROJECT_ID",
    "NOWHERE",
    "TOLD",
    "WORKLOAD",
    "WORKLOAD_ID",
    "Access",
    "limit",
    "people_scenario",
]

DEMO = bundled_scenario("demo")
ERIN = "erin@acme.ai"
NLP_PROJECT_ID, VISION_PROJECT_ID = "4", "5"
INFERENCES_ROLE, VIEWER_ROLE = 4, 2
#: The workload every table asks about: a Workspace in nlp, stopped by the idle-GPU policy.
WORKLOAD = "jupyter-alice"
WORKLOAD_ID = next(w.id for w in DEMO.workloads if w.workload["name"] == WORKLOAD)
BY_ID = f"why did {WORKLOAD_ID} fail on cluster prod-a?"
BY_NAME = f"why did {WORKLOAD} in nlp fail on cluster prod-a?"
CATEGORY = "SCHEDULING_POLICY_TERMINATED"
#: What the answer says about the workload: its category, why, its phase.
TOLD = (CATEGORY, "idle", "Stopped")
#: What ends a turn: the answer, its evidence, "no workload named …" (by name, as absent),
#: or the question for the cluster (a private reply ends it too).
ENDS = (CATEGORY, "All evidence", "No workload named", "Which Run:ai cluster")
#: The refusal of someone who may read nothing on any cluster.
NOWHERE = (
    "You don't have read access to workloads on any cluster in Run:ai; "
    "ask your Run:ai administrator."
)


class Access(Enum):
    """A row's access to `WORKLOAD`, and the e-mail of the person who has it."""

    ALLOWED = "bob@acme.ai"
    DENIED_BY_KIND = "dave@acme.ai"
    DENIED_BY_PROJECT = "alice@acme.ai"


ACCESS = list(Access)


def _rule(number: int, subject: str, role: int, project: str) -> dict[str, Any]:
    return {
        "id": number,
        "subjectId": subject,
        "subjectType": "user",
        "roleId": role,
        "roleName": f"role {role}",
        "scopeId": project,
        "scopeType": "project",
        "scopeName": project,
        "tenantId": 1001,
        "createdAt": "2025-01-10T08:00:00Z",
        "updatedAt": "2025-01-10T08:00:00Z",
        "deletedAt": None,
        "createdBy": "admin@acme.ai",
        "status": {"phase": "Ready"},
    }


def people_scenario() -> Scenario:
    """The demo with dave's and erin's rules (a deep copy: `limit` may change erin's)."""
    rules = copy.deepcopy(DEMO.access_rules or [])
    rules += [
        _rule(90, Access.DENIED_BY_KIND.value, INFERENCES_ROLE, NLP_PROJECT_ID),
        _rule(91, ERIN, VIEWER_ROLE, NLP_PROJECT_ID),
    ]
    return DEMO.model_copy(update={"access_rules": rules})


def limit(scenario: Scenario, access: Access) -> None:
    """Change erin's rule so that she has `access` to `WORKLOAD` from now on.

    A simulator reads the rules of its scenario on every request.
    """
    [rule] = [r for r in scenario.access_rules or [] if r["subjectId"] == ERIN]
    if access is Access.DENIED_BY_KIND:
        rule["roleId"] = INFERENCES_ROLE
    elif access is Access.DENIED_BY_PROJECT:
        rule["scopeId"] = VISION_PROJECT_ID
