"""The bundled demo's access model: alice@acme.ai reads every project but nlp."""

from __future__ import annotations

import pytest

from bot.app.backends import simulated
from bot.app.demo.scenarios import bundled_scenario
from bot.authz import ANY_KIND, Authorizer, Identity, Reason, Target

PROD_A = "2b7c3d1e-9f4a-4c58-a1d6-5e8f0b3c7d92"

#: (who, project) -> may they read its workloads?
EXPECTED = {
    ("alice@acme.ai", "ml-team"): True,  # her group's department rule
    ("alice@acme.ai", "vision"): True,  # her project rule
    ("alice@acme.ai", "nlp"): False,  # a rule there, but with a role that reads no workloads
    ("bob@acme.ai", "nlp"): True,  # tenant-wide Viewer
    ("carol@acme.ai", "vision"): True,  # the research department, through her group
    ("carol@acme.ai", "nlp"): True,
    ("carol@acme.ai", "ml-team"): False,
    ("mallory@acme.ai", "vision"): False,  # no rules at all
}


@pytest.mark.parametrize(("who", "project"), EXPECTED, ids=[f"{w} {p}" for w, p in EXPECTED])
async def test_who_reads_what_in_the_demo(who, project):
    async with simulated(bundled_scenario("demo"), transport="asgi") as found:
        decision = await Authorizer(found.runai).check(
            Identity.console(who), Target(PROD_A, "prod-a", project, kind=ANY_KIND)
        )
    assert decision.allowed is EXPECTED[who, project]
    if not decision.allowed:
        assert decision.reason is Reason.NO_READ_ACCESS


async def test_the_demo_denial_reads_as_the_issue_words_it():
    async with simulated(bundled_scenario("demo"), transport="asgi") as found:
        decision = await Authorizer(found.runai).check(
            Identity.console("alice@acme.ai"), Target(PROD_A, "prod-a", "nlp", kind=ANY_KIND)
        )
    assert decision.message() == (
        "You don't have read access to workloads in project nlp on prod-a in Run:ai; "
        "ask your Run:ai administrator."
    )
