"""The decision table: (user, groups, rules, roles, project, kind) -> allow or deny.

Each row runs the real `Authorizer` and `RunaiClient` against the simulated control plane
serving that row's users and rules (roles, projects and departments: `model.py`).
"""

from __future__ import annotations

import pytest

from bot.authz import ANY_KIND, AnyKind, Identity, Reason
from tests.bot.authz.model import ALICE, Rule, authorizer, backends, rule_body, scenario, target

U, G = "user", "group"
ALLOW, DENY = True, False
#: The kind of the check before a by-name listing; None is a workload whose kind is unknown.
ANY = ANY_KIND

#: id: (groups, rules, cluster, project, kind, allowed)
TABLE: dict[str, tuple[list[str], list[Rule], str, str, str | AnyKind | None, bool]] = {
    "no rules": ([], [], "A", "nlp", ANY, DENY),
    "tenant viewer": ([], [(U, ALICE, 2, "tenant", "tenant")], "A", "nlp", ANY, ALLOW),
    "tenant viewer, other cluster": (
        [],
        [(U, ALICE, 2, "tenant", "tenant")],
        "B",
        "nlp",
        ANY,
        ALLOW,
    ),
    "system viewer": ([], [(U, ALICE, 2, "system", "system")], "A", "ml-team", ANY, ALLOW),
    "system administrator": (
        [],
        [(U, ALICE, 1, "system", "system")],
        "A",
        "vision",
        "Training",
        ALLOW,
    ),
    "cluster A viewer on A": ([], [(U, ALICE, 2, "cluster", "A")], "A", "nlp", ANY, ALLOW),
    "cluster A viewer on B": ([], [(U, ALICE, 2, "cluster", "A")], "B", "nlp", ANY, DENY),
    "cluster B viewer on B": ([], [(U, ALICE, 2, "cluster", "B")], "B", "nlp", ANY, ALLOW),
    "department research: nlp": (
        [],
        [(U, ALICE, 2, "department", "d-research")],
        "A",
        "nlp",
        ANY,
        ALLOW,
    ),
    "department research: vision": (
        [],
        [(U, ALICE, 2, "department", "d-research")],
        "A",
        "vision",
        ANY,
        ALLOW,
    ),
    "department research: not ml-team": (
        [],
        [(U, ALICE, 2, "department", "d-research")],
        "A",
        "ml-team",
        ANY,
        DENY,
    ),
    "department research: not nlp on B": (
        [],
        [(U, ALICE, 2, "department", "d-research")],
        "B",
        "nlp",
        ANY,
        DENY,
    ),
    "department research-b: nlp on B": (
        [],
        [(U, ALICE, 3, "department", "d-research-b")],
        "B",
        "nlp",
        "Training",
        ALLOW,
    ),
    "department platform: ml-team": (
        [],
        [(U, ALICE, 2, "department", "d-platform")],
        "A",
        "ml-team",
        ANY,
        ALLOW,
    ),
    "unknown department": ([], [(U, ALICE, 2, "department", "d-nowhere")], "A", "nlp", ANY, DENY),
    "project nlp on A": ([], [(U, ALICE, 2, "project", "p-nlp-a")], "A", "nlp", ANY, ALLOW),
    "project nlp on A, not nlp on B": (
        [],
        [(U, ALICE, 2, "project", "p-nlp-a")],
        "B",
        "nlp",
        ANY,
        DENY,
    ),
    "project vision, not nlp": ([], [(U, ALICE, 2, "project", "p-vision")], "A", "nlp", ANY, DENY),
    "unknown scope type": ([], [(U, ALICE, 2, "galaxy", "tenant")], "A", "nlp", ANY, DENY),
    "no such project": ([], [(U, ALICE, 2, "tenant", "tenant")], "A", "nope", ANY, DENY),
    "group department rule": (
        ["research-team"],
        [(G, "research-team", 2, "department", "d-research")],
        "A",
        "nlp",
        ANY,
        ALLOW,
    ),
    "group rule, second group": (
        ["x", "research-team"],
        [(G, "research-team", 2, "project", "p-nlp-a")],
        "A",
        "nlp",
        ANY,
        ALLOW,
    ),
    "group rule, not a member": (
        ["platform"],
        [(G, "research-team", 2, "tenant", "tenant")],
        "A",
        "nlp",
        ANY,
        DENY,
    ),
    "group rule, no groups": (
        [],
        [(G, "research-team", 2, "tenant", "tenant")],
        "A",
        "nlp",
        ANY,
        DENY,
    ),
    "group name as a user subject": (
        ["research-team"],
        [(U, "research-team", 2, "tenant", "tenant")],
        "A",
        "nlp",
        ANY,
        DENY,
    ),
    "e-mail as a group subject": ([], [(G, ALICE, 2, "tenant", "tenant")], "A", "nlp", ANY, DENY),
    "someone else's rule": (
        [],
        [(U, "bob@acme.ai", 2, "tenant", "tenant")],
        "A",
        "nlp",
        ANY,
        DENY,
    ),
    "credentials administrator": ([], [(U, ALICE, 5, "tenant", "tenant")], "A", "nlp", ANY, DENY),
    "disabled role": ([], [(U, ALICE, 6, "tenant", "tenant")], "A", "nlp", ANY, DENY),
    "write without read": ([], [(U, ALICE, 7, "tenant", "tenant")], "A", "nlp", ANY, DENY),
    "events only": ([], [(U, ALICE, 9, "tenant", "tenant")], "A", "nlp", ANY, DENY),
    "unknown role": ([], [(U, ALICE, 99, "tenant", "tenant")], "A", "nlp", ANY, DENY),
    "trainings role, training": (
        [],
        [(U, ALICE, 3, "tenant", "tenant")],
        "A",
        "nlp",
        "Training",
        ALLOW,
    ),
    "trainings role, distributed": (
        [],
        [(U, ALICE, 3, "tenant", "tenant")],
        "A",
        "nlp",
        "Distributed",
        ALLOW,
    ),
    "trainings role, workspace": (
        [],
        [(U, ALICE, 3, "tenant", "tenant")],
        "A",
        "nlp",
        "Workspace",
        DENY,
    ),
    "trainings role, any kind": ([], [(U, ALICE, 3, "tenant", "tenant")], "A", "nlp", ANY, ALLOW),
    "trainings role, kind unknown": (
        [],
        [(U, ALICE, 3, "tenant", "tenant")],
        "A",
        "nlp",
        None,
        DENY,
    ),
    "viewer, kind unknown": ([], [(U, ALICE, 2, "tenant", "tenant")], "A", "nlp", None, ALLOW),
    "inferences role, any kind": (
        [],
        [(U, ALICE, 4, "project", "p-nlp-a")],
        "A",
        "nlp",
        ANY,
        ALLOW,
    ),
    "inferences role, workspace": (
        [],
        [(U, ALICE, 4, "project", "p-nlp-a")],
        "A",
        "nlp",
        "Workspace",
        DENY,
    ),
    "trainings role, unknown kind": (
        [],
        [(U, ALICE, 3, "tenant", "tenant")],
        "A",
        "nlp",
        "NewKind",
        DENY,
    ),
    "viewer, unknown kind": ([], [(U, ALICE, 2, "tenant", "tenant")], "A", "nlp", "NewKind", ALLOW),
    "inferences role, inference": (
        [],
        [(U, ALICE, 4, "cluster", "A")],
        "A",
        "vision",
        "Inference",
        ALLOW,
    ),
    "inferences role, training": (
        [],
        [(U, ALICE, 4, "cluster", "A")],
        "A",
        "vision",
        "Training",
        DENY,
    ),
    "workspaces role, workspace": (
        [],
        [(U, ALICE, 8, "project", "p-ml")],
        "A",
        "ml-team",
        "Workspace",
        ALLOW,
    ),
    "workspaces role, interactive": (
        [],
        [(U, ALICE, 8, "project", "p-ml")],
        "A",
        "ml-team",
        "interactive",
        ALLOW,
    ),
    "kinds add up across rules": (
        ["platform"],
        [(U, ALICE, 8, "project", "p-ml"), (G, "platform", 3, "department", "d-platform")],
        "A",
        "ml-team",
        "Training",
        ALLOW,
    ),
    "a useless rule beside a good one": (
        [],
        [(U, ALICE, 5, "tenant", "tenant"), (U, ALICE, 2, "project", "p-nlp-a")],
        "A",
        "nlp",
        ANY,
        ALLOW,
    ),
    "a good rule elsewhere only": (
        [],
        [(U, ALICE, 5, "project", "p-nlp-a"), (U, ALICE, 2, "project", "p-vision")],
        "A",
        "nlp",
        ANY,
        DENY,
    ),
}


@pytest.mark.parametrize("row", TABLE.values(), ids=TABLE.keys())
async def test_decision(row):
    groups, rules, cluster, project, kind, allowed = row
    async with backends(scenario(groups=groups, rules=rules)) as found:
        decision = await authorizer(found).check(
            Identity.console(ALICE), target(cluster, project, kind)
        )
    assert decision.allowed is allowed, decision
    assert decision.reason is (Reason.ALLOWED if allowed else Reason.NO_READ_ACCESS)


def test_the_table_covers_every_scope_type_and_both_outcomes():
    scopes = {rule[3] for _, rules, *_ in TABLE.values() for rule in rules}
    assert {"system", "tenant", "cluster", "department", "project"} <= scopes
    assert {row[-1] for row in TABLE.values()} == {ALLOW, DENY}
    assert len(TABLE) >= 40


async def test_a_deleted_rule_grants_nothing():
    deleted = rule_body(1, ("user", ALICE, 2, "tenant", "tenant"), deletedAt="2025-10-01T00:00:00Z")
    async with backends(scenario(rules=[deleted])) as found:
        decision = await authorizer(found).check(Identity.console(ALICE), target("A", "nlp"))
    assert decision.reason is Reason.NO_READ_ACCESS


async def test_a_user_run_ai_does_not_list_still_has_their_own_rules():
    model = scenario(email="someone-else@acme.ai", rules=[("user", ALICE, 2, "project", "p-nlp-a")])
    async with backends(model) as found:
        decision = await authorizer(found).check(Identity.console(ALICE), target("A", "nlp"))
    assert decision.allowed


async def test_null_groups_mean_no_groups():
    model = scenario(groups=None, rules=[("group", "research-team", 2, "tenant", "tenant")])
    async with backends(model) as found:
        decision = await authorizer(found).check(Identity.console(ALICE), target("A", "nlp"))
    assert decision.reason is Reason.NO_READ_ACCESS


async def test_candidates_are_filtered_by_the_kinds_granted():
    async with backends(scenario(rules=[("user", ALICE, 3, "tenant", "tenant")])) as found:
        decision = await authorizer(found).check(Identity.console(ALICE), target("A", "nlp"))
    assert decision.readable == {"trainings"}
    assert [
        k for k in ("Training", "Workspace", "Inference", "Distributed") if decision.allows_kind(k)
    ] == [
        "Training",
        "Distributed",
    ]
