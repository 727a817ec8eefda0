"""The bundled demo's access model: alice@acme.ai reads every project but nlp.

And who may see a department's quota and usage: a rule reading `department` over a scope that
covers it. bob and carol may see research's; alice may not (only a project rule reaches it),
nor frank (his role reads the department's workloads, not the department). The chat's own
checks (`diagnose_all`, over HTTP) then show one the department's figures and not the other.
"""

from __future__ import annotations

import pytest

from bot.app.backends import simulated
from bot.app.demo.chat import diagnose_all
from bot.app.demo.scenarios import bundled_scenario
from bot.authz import ANY_KIND, Authorizer, Identity, Reason, Target
from diagnosis import Report

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
    ("frank@acme.ai", "vision"): True,  # the research department, with a Workload viewer role
    ("frank@acme.ai", "ml-team"): False,
}

ML_PLATFORM, RESEARCH = "1", "2"
#: (who, department id) -> may they see its quota and usage?
DEPARTMENTS = {
    (
        "alice@acme.ai",
        ML_PLATFORM,
    ): True,  # her group's Viewer rule on it (Viewer reads departments)
    ("alice@acme.ai", RESEARCH): False,  # only a project rule (vision) inside it
    ("bob@acme.ai", RESEARCH): True,  # tenant-wide Viewer
    ("carol@acme.ai", RESEARCH): True,  # L1 researcher on it, through her group
    ("carol@acme.ai", ML_PLATFORM): False,
    ("frank@acme.ai", RESEARCH): False,  # a rule on it, but his role reads no departments
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


@pytest.mark.parametrize(
    ("who", "department"), DEPARTMENTS, ids=[f"{w} {d}" for w, d in DEPARTMENTS]
)
async def test_who_may_see_which_departments_figures_in_the_demo(who, department):
    async with simulated(bundled_scenario("demo"), transport="asgi") as found:
        sees = await Authorizer(found.runai).reads_department(
            Identity.console(who), PROD_A, department
        )
    assert sees is DEPARTMENTS[who, department]


async def _vit_answer(who: str) -> Report:
    """The demo's Pending vit-pretrain-xl (vision, department research), as `who` asks."""
    demo = bundled_scenario("demo")
    only = demo.model_copy(update={"expect": [demo.expect[-1]]})
    [(_, report)] = [answer async for answer in diagnose_all(only, as_email=who)]
    assert isinstance(report, Report), report
    return report


async def test_the_chat_shows_the_departments_figures_only_to_who_may_read_it():
    carol = await _vit_answer("carol@acme.ai")
    for who in ("alice@acme.ai", "frank@acme.ai"):
        other = await _vit_answer(who)
        assert other.pending is not None
        assert other.pending.reason == "UNKNOWN", other.headline
        assert "whether department research is too is not known" in other.headline
        said = other.model_dump_json()
        assert "get_department" not in said
        assert "36 deserved" not in said
    assert carol.pending is not None
    assert carol.pending.reason == "NODE_POOL_FULL", carol.headline
    assert "the project and its department research are within quota" in carol.headline
    [department] = [e for e in carol.evidence if e.source == "get_department"]
    assert "deserved 36 GPUs, allocated 18" in department.text
