"""The category registry: one row per category owns its rule, owner and advice; typed details."""

from __future__ import annotations

import ast
from pathlib import Path

import pydantic
import pytest

import diagnosis
from diagnosis.compose import compose
from diagnosis.report import Category
from diagnosis.rules import REGISTRY, RULES, classify, row
from diagnosis.rules.base import Details, PullSubcause
from diagnosis.rules.unknown import STOPPED_UNEXCLUDED
from tests.diagnosis.rules.cases import CASES
from tests.factories import event, evidence, history_event, workload


def test_one_row_per_category_unknown_last_as_the_fallback():
    categories = [r.category for r in REGISTRY]
    assert sorted(categories) == sorted(Category)
    assert categories[-1] is Category.UNKNOWN
    assert REGISTRY[-1].rule is None
    assert all(r.rule is not None for r in REGISTRY[:-1])
    assert [c for c, _ in RULES] == categories[:-1], "RULES is the registry's priority order"


def test_every_category_has_a_verdict_case():
    """The table below composes a report of every category, so every owner is checked."""
    assert {c[2] for c in CASES} == set(Category)


@pytest.mark.parametrize(("case", "ev", "category", "details"), CASES, ids=[c[0] for c in CASES])
def test_each_verdict_is_explained_by_its_own_row(case, ev, category, details):
    """Every verdict gets its row's owner and at least one action, fitted to its details."""
    finding = classify(ev)
    report = compose(ev, finding)
    assert report.category is category is not None
    assert report.recovery_owner == row(category).owner_of(finding)
    assert report.recommendations, f"{case}: no next step"
    assert report.details == finding.details.model_dump(mode="json", exclude_defaults=True)


DETAIL_ROWS = [
    # input, what it must become (None: rejected)
    pytest.param({"subcause": "network"}, Details(subcause=PullSubcause.NETWORK), id="coerced"),
    pytest.param({"exit_code": 137}, Details(exit_code=137), id="int"),
    pytest.param({"subcause": "credentials"}, None, id="unknown-subcause-rejected"),
    pytest.param({"finding": "gpu-oom"}, None, id="unknown-key-rejected"),
]


@pytest.mark.parametrize(("raw", "expected"), DETAIL_ROWS)
def test_details_are_typed(raw, expected):
    """A misspelt key or sub-cause is an error, not a silently ignored string."""
    if expected is None:
        with pytest.raises(pydantic.ValidationError):
            Details.model_validate(raw)
    else:
        assert Details.model_validate(raw) == expected


STOPPED = [
    # workload, events, history, category, preemption gap stated?
    pytest.param(
        workload(phase="Stopped", phaseMessage="container trainer exit code 1"),
        None,
        None,
        Category.UNKNOWN,
        True,
        id="stopped-events-and-history-lost",
    ),
    pytest.param(
        workload(phase="Stopped", phaseMessage="container trainer exit code 1"),
        [],
        None,
        Category.CRASH_APP_ERROR,
        False,
        id="stopped-events-read",
    ),
    pytest.param(
        workload(phase="Stopped"),
        None,
        [history_event("Stopped", "Workload stopped by alice@example.com", 10)],
        Category.SCHEDULING_POLICY_TERMINATED,
        False,
        id="stopped-history-read",
    ),
    pytest.param(
        workload(phaseMessage="container trainer exit code 1"),
        None,
        None,
        Category.CRASH_APP_ERROR,
        False,
        id="failed-needs-no-preemption-check",
    ),
]


@pytest.mark.parametrize(("wl", "events", "history", "category", "gap"), STOPPED)
def test_stopped_continues_only_once_preemption_is_excluded(wl, events, history, category, gap):
    ev = evidence(wl, events=events, history=history)
    report = compose(ev, classify(ev))
    assert report.category is category
    assert (STOPPED_UNEXCLUDED in report.missing) is gap
    assert ("preemption cannot be told apart" in " ".join(report.recommendations)) is gap


def test_an_undecoded_pull_error_is_not_read_as_credentials():
    """A registry error the lexicon cannot decode is unspecified: owner and advice say so."""
    ev = evidence(events=[event("ErrImagePull", "something new and strange")])
    finding = classify(ev)
    assert finding.details.subcause is PullSubcause.UNSPECIFIED
    advice = " ".join(row(finding.category).advise(ev, finding))
    assert "do not assume credentials" in advice


OWN_FILE = {
    "oom.py": Category.OOM_KILLED,
    "image_pull.py": Category.IMAGE_PULL_FAILED,
    "init.py": Category.INIT_FAILED,
    "mount.py": Category.DATASOURCE_MOUNT_FAILED,
    "node.py": Category.NODE_FAILURE,
    "policy.py": Category.SCHEDULING_POLICY_TERMINATED,
    "crash.py": Category.CRASH_APP_ERROR,
    "unknown.py": Category.UNKNOWN,
}


def _category_references(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "Category"
        and node.attr.isupper()
    }


def test_each_categorys_knowledge_lives_in_its_own_file():
    """No module names a category except that category's rule file: one place per category."""
    root = Path(diagnosis.__file__).parent.parent
    for path in sorted([*(root / "diagnosis").rglob("*.py"), *(root / "bot").rglob("*.py")]):
        named = _category_references(path)
        own = OWN_FILE.get(path.name) if path.parent.name == "rules" else None
        allowed = {own.name} if own else set()
        assert named <= allowed, f"{path.relative_to(root)} names {sorted(named - allowed)}"
    assert set(OWN_FILE.values()) == set(Category)
