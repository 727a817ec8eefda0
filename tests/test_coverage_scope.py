"""tests/coverage_scope.py: Hypothesis draws untraced, each test body runs under the tracer."""

from __future__ import annotations

import sys
from types import FrameType, SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests import coverage_scope

EXAMPLES = 7


def _tracer(frame: FrameType, event: str, arg: Any) -> None:
    """A trace function that traces nothing (it only has to be told apart)."""


def _inner(obj: object) -> object:
    """The body a Hypothesis test runs for each example (None for other tests)."""
    return getattr(getattr(obj, "hypothesis", None), "inner_test", None)


def _run(item: Any, test: Any) -> None:
    """What pytest does with the hook wrapper: enter it, run the test, leave it."""
    hook = coverage_scope.pytest_runtest_call(item)
    next(hook)
    test()
    with pytest.raises(StopIteration):
        hook.send(None)


@pytest.fixture
def traced():
    """This thread under `_tracer` for the test (coverage's own tracer is put back after)."""
    before = sys.gettrace()
    sys.settrace(_tracer)
    try:
        yield _tracer
    finally:
        sys.settrace(before)


def test_examples_are_drawn_untraced_and_each_body_runs_traced(traced):
    bodies: list[object] = []
    drawn: list[object] = []

    def untraced_draw(n: int) -> int:
        drawn.append(sys.gettrace())
        return n

    @settings(max_examples=EXAMPLES, database=None)
    @given(st.integers().map(untraced_draw))
    def prop(n: int) -> None:
        bodies.append(sys.gettrace())

    inner = _inner(prop)
    _run(SimpleNamespace(obj=prop), prop)
    assert bodies == [traced] * EXAMPLES
    assert drawn == [None] * EXAMPLES
    assert sys.gettrace() is traced  # put back after the test
    assert _inner(prop) is inner


def test_a_body_already_under_another_tracer_is_left_to_it(traced):
    def other(frame: FrameType, event: str, arg: Any) -> None:
        """Another tool's tracer (Hypothesis sets one to explain a failure)."""

    bodies: list[object] = []

    @settings(max_examples=EXAMPLES, database=None)
    @given(st.integers())
    def prop(n: int) -> None:
        bodies.append(sys.gettrace())

    def under_other() -> None:
        sys.settrace(other)
        try:
            prop()
        finally:
            sys.settrace(None)

    _run(SimpleNamespace(obj=prop), under_other)
    assert bodies == [other] * EXAMPLES
    assert sys.gettrace() is traced


@pytest.mark.parametrize(
    ("obj", "tracer"),
    [
        pytest.param(lambda: None, _tracer, id="not a Hypothesis test"),
        pytest.param(given(st.integers())(lambda _n: None), None, id="nothing traces"),
    ],
)
def test_other_tests_run_as_they_are(obj, tracer):
    before = sys.gettrace()
    sys.settrace(tracer)
    try:
        inner = _inner(obj)
        seen: list[object] = []
        _run(SimpleNamespace(obj=obj), lambda: seen.append(sys.gettrace()))
        assert seen == [tracer]
        assert _inner(obj) is inner
    finally:
        sys.settrace(before)
