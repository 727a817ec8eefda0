"""The access model the authorization tests run against (tests/runai_sim/data/access.json).

Two clusters, each with a project named `nlp`; departments; roles that grant read on all
workloads (2 Viewer, 1 System administrator), on one kind (3 trainings, 4 inferences,
8 workspaces) or on none (5, 6 disabled, 7 write-only, 9 events only); and two that read
departments (10 Department viewer, with every workload; 11 Department auditor, alone).
Cases replace the users and the rules.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

from bot.app.backends import Backends, simulated
from bot.authz import ANY_KIND, AnyKind, Authorizer, Target
from runai_sim import Scenario
from tests.runai_sim.sim_helpers import DATA

BASE: dict[str, Any] = json.loads((DATA / "access.json").read_text(encoding="utf-8"))
CLUSTERS = {
    "A": "2b7c3d1e-9f4a-4c58-a1d6-5e8f0b3c7d92",
    "B": "9c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e5f",
}
NAMES = {"A": "prod-a", "B": "prod-b"}
SCOPE_IDS = {"tenant": "1001", "system": "system"}
ALICE = "alice@acme.ai"

#: A rule as a case writes it: (subjectType, subjectId, roleId, scopeType, scopeId).
Rule = tuple[str, str, int, str, str]


def rule_body(number: int, rule: Rule, **extra: Any) -> dict[str, Any]:
    subject_type, subject_id, role_id, scope_type, scope_id = rule
    return {
        "id": number,
        "subjectId": subject_id,
        "subjectType": subject_type,
        "roleId": role_id,
        "roleName": f"role {role_id}",
        "scopeId": CLUSTERS.get(scope_id, SCOPE_IDS.get(scope_id, scope_id)),
        "scopeType": scope_type,
        "scopeName": scope_id,
        "tenantId": 1001,
        "createdAt": "2025-06-01T00:00:00Z",
        "updatedAt": "2025-06-01T00:00:00Z",
        "deletedAt": None,
        "createdBy": "admin@acme.ai",
        **extra,
    }


def scenario(
    *,
    groups: Sequence[str] | None = (),
    rules: Sequence[Rule | dict[str, Any]] = (),
    email: str = ALICE,
) -> Scenario:
    """The base model with one user (`email`, in `groups`) and exactly these rules."""
    data = {**BASE}
    data["users"] = [
        {
            "id": "u-1",
            "username": email,
            "createdBy": "admin@acme.ai",
            "createdAt": "2025-06-01T00:00:00Z",
            "updatedAt": "2025-06-01T00:00:00Z",
            "lastLogin": None,
            "isLocal": False,
            "groups": None if groups is None else list(groups),
        }
    ]
    data["access_rules"] = [
        r if isinstance(r, dict) else rule_body(n, r) for n, r in enumerate(rules, start=1)
    ]
    return Scenario.parse(data)


def target(cluster: str, project: str, kind: str | AnyKind | None = ANY_KIND) -> Target:
    """Workloads of `kind` in `project` on cluster "A" or "B" (default: of any kind)."""
    return Target(CLUSTERS[cluster], NAMES[cluster], project, kind=kind)


@asynccontextmanager
async def backends(model: Scenario, *, retries: int = 0) -> AsyncIterator[Backends]:
    async with simulated(model, transport="asgi", retries=retries) as found:
        yield found


def authorizer(found: Backends, **options: Any) -> Authorizer:
    return Authorizer(found.runai, **options)
