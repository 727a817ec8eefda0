"""Every bundled scenario, end to end: simulator → RunaiClient (+ KubeClient) → diagnose.

The clients reach the simulator in-process through `httpx.ASGITransport`; a few scenarios
also run over a real loopback socket (`e2e`), to keep the wire itself covered.

Each `expect` entry of each file is one case; the expectations live next to the data they
describe, so a new scenario is a new file and needs no new test code.
"""

from __future__ import annotations

import re
from typing import Any, Literal

import pytest

from bot.app.backends import simulated
from bot.app.demo.scenarios import bundled_paths, request_from_expectation
from bot.render.plan import answer
from diagnosis import DepartmentAccess, Report, WorkloadAccess, diagnose, for_viewer
from runai_sim.scenario import Scenario
from tests.line_one import HEADLINE_MAX


def _cases() -> list[Any]:
    cases = []
    for path in bundled_paths():
        scenario = Scenario.load(path)
        for index, expectation in enumerate(scenario.expect or []):
            cases.append(pytest.param(scenario, expectation, id=f"{path.stem}[{index}]"))
    return cases


CASES = _cases()


def test_library_covers_every_outcome_and_category():
    """At least one scenario per outcome and per category, as the issue requires."""
    outcomes = {c.values[1]["outcome"] for c in CASES}
    categories = {c.values[1].get("category") for c in CASES} - {None}
    assert outcomes >= {
        "diagnosed",
        "succeeded",
        "preempted",
        "pending_scheduling",
        "suspended",
        "running_no_failure",
        "not_terminal",
        "cluster_mismatch",
        "needs_input",
        "not_found",
    }
    assert categories >= {
        "CRASH_APP_ERROR",
        "OOM_KILLED",
        "IMAGE_PULL_FAILED",
        "INIT_FAILED",
        "DATASOURCE_MOUNT_FAILED",
        "NODE_FAILURE",
        "SCHEDULING_POLICY_TERMINATED",
        "UNKNOWN",
    }


@pytest.mark.parametrize("path", bundled_paths(), ids=lambda path: path.stem)
def test_every_scenario_carries_what_the_official_schemas_require(path):
    assert Scenario.load(path).schema_problems() == []


@pytest.mark.parametrize(("scenario", "expected"), CASES)
async def test_scenario(scenario: Scenario, expected: dict[str, Any]):
    await check_scenario(scenario, expected, transport="asgi")


@pytest.mark.parametrize(("scenario", "expected"), CASES)
async def test_line_one_stays_short(scenario: Scenario, expected: dict[str, Any]):
    """Every bundled answer's headline fits `HEADLINE_MAX`: its detail is in the evidence.

    So does each headline it carries for others: without the department it read, without
    the preemptor, and as someone who reads only the workload's project is shown it.
    """
    request = request_from_expectation(scenario, expected)
    async with simulated(scenario, retries=1, transport="asgi") as up:
        report = await diagnose(request, runai=up.runai, kube=up.kube, now=scenario.now)
    held, unseen = report.without_department, report.without_preemptor
    project = report.workload.project if report.workload else None

    async def only_its_project(access: WorkloadAccess | DepartmentAccess, /) -> bool:
        return isinstance(access, WorkloadAccess) and access.project == project

    shown = await for_viewer(report, only_its_project)
    headlines = [report.headline, shown.headline]
    headlines += [held.report.headline] if held else []
    headlines += [unseen.headline] if unseen else []
    for headline in headlines:
        assert len(headline) <= HEADLINE_MAX, (len(headline), headline)


#: Over a real socket: paging through the wire, and Tier 2 (a second client) on one server.
WIRE = ("list-paged", "t2-oom-lastState")


@pytest.mark.e2e
@pytest.mark.parametrize(("scenario", "expected"), [c for c in CASES if c.id.startswith(WIRE)])
async def test_scenario_over_a_real_socket(scenario: Scenario, expected: dict[str, Any]):
    await check_scenario(scenario, expected, transport="socket")


async def check_scenario(
    scenario: Scenario, expected: dict[str, Any], *, transport: Literal["asgi", "socket"]
) -> None:
    """Diagnose the scenario's request and compare the report with its expectations."""
    request = request_from_expectation(scenario, expected)
    async with simulated(scenario, retries=1, transport=transport) as up:
        report = await diagnose(request, runai=up.runai, kube=up.kube, now=scenario.now)

    data = report.to_json_dict(request.lookback_label())
    assert data["outcome"] == expected["outcome"], report.headline
    assert data["category"] == expected.get("category"), report.headline
    if "recurrence_count" in expected:
        assert data["recurrence"]["count"] == expected["recurrence_count"]
    if "selected_workload_id" in expected:
        assert data["workload"]["id"] == expected["selected_workload_id"]
    if "candidates" in expected:
        assert len(report.candidates) == expected["candidates"]
    for text in expected.get("headline_contains", []):
        assert text in report.headline
    for text in expected.get("evidence_contains", []):
        assert any(text in e["text"] for e in data["evidence"]), (text, data["evidence"])
    _check_facts_and_changes(report, data, expected)
    for text in expected.get("missing_contains", []):
        assert any(text in m for m in data["missing"]), (text, data["missing"])
    _check_advice(data["recommendations"], data["recovery_owner"], expected)
    _check_times(report)
    for key in ("pending", "preemption"):  # a subset of the --json object, member by member
        for member, value in expected.get(key, {}).items():
            assert data[key] is not None, f"no {key} object: {report.headline}"
            assert data[key][member] == value, (key, member, data[key])
    assert all(e["source"] for e in data["evidence"]), "every evidence line cites its source"
    if data["outcome"] == "diagnosed":
        assert data["evidence"], "a diagnosis without evidence is a guess"
        assert data["recommendations"], "every diagnosis says what to do next"


#: A time the answer prints in another form than `2025-11-04 08:16:37Z` (a quoted upstream
#: `2025-11-04T08:16:37Z` is the source's own words): a time of day alone, or no seconds.
_OTHER_TIME = re.compile(
    r"(?<![\dT:])(?<!\d{4}-\d{2}-\d{2} )\d{2}:\d{2}(?::\d{2})?Z|\d{4}-\d{2}-\d{2} \d{2}:\d{2}Z"
)


def _check_times(report: Report) -> None:
    """One time format per answer: every moment the bot writes is printed the same way."""
    texts = [report.headline, *(e.text for e in report.evidence), *report.recommendations]
    texts += report.missing
    odd = [t for t in texts if _OTHER_TIME.search(t)]
    assert not odd, odd


#: An advised `kubectl` command, and the ones about cluster-scoped objects (no namespace).
_KUBECTL = re.compile(r"`(kubectl [^`]*)`")
_CLUSTER_SCOPED = re.compile(r"kubectl (get|describe) (nodes?|queues?)\b")


def _check_advice(advice: list[str], owner: str | None, expected: dict[str, Any]) -> None:
    """The expected words, and every `kubectl` command runnable as written (its namespace)."""
    for text in expected.get("owner_contains", []):
        assert text in (owner or ""), (text, owner)
    for text in expected.get("owner_not_contains", []):
        assert text not in (owner or ""), (text, owner)
    for text in expected.get("recommendations_contains", []):
        assert any(text in r for r in advice), (text, advice)
    for text in expected.get("recommendations_not_contains", []):
        assert not any(text in r for r in advice), (text, advice)
    for command in (c for r in advice for c in _KUBECTL.findall(r)):
        assert _CLUSTER_SCOPED.match(command) or " -n " in command, f"no namespace: {command}"


def _check_facts_and_changes(
    report: Report, data: dict[str, Any], expected: dict[str, Any]
) -> None:
    """The merged facts' sources, the one-screen answer and what changed since a good run."""
    facts = report.facts()
    for text, sources in expected.get("fact_sources", []):
        fact = next(f for f in facts if text in f.text)
        assert set(sources) <= set(fact.sources), (text, fact.sources)
    if "deciding_at_most" in expected:
        assert len(answer(report).lines) <= expected["deciding_at_most"], answer(report)
    changes = report.changes
    changed = [changes.summary(), *(c.describe() for c in changes.items)] if changes else []
    for text in expected.get("changes_contains", []):
        assert any(text in c for c in changed), (text, changed)
    for text in expected.get("evidence_not_contains", []):
        rendered = " ".join([report.headline, *(e["text"] for e in data["evidence"]), *changed])
        assert text not in rendered, f"{text!r} leaked into the report"
