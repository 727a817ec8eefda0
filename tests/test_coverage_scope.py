"""tests/coverage_scope.py: a test's phases are traced, pytest's work and Hypothesis' draws not."""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import FrameType, SimpleNamespace
from typing import Any

import pytest
from coverage.pytracer import PyTracer
from coverage.tracer import CTracer
from hypothesis import given, settings
from hypothesis import strategies as st

from tests import coverage_scope

EXAMPLES = 7


class _CoverageTracer:
    """Stands for coverage's tracer: the plugin tells it by the module its type comes from."""

    __module__ = "coverage"  # where coverage's C tracer comes from

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        """Traces nothing: it only has to be told apart."""


_tracer = _CoverageTracer()


def _other(frame: FrameType, event: str, arg: Any) -> None:
    """Another tool's tracer (a debugger's, or Hypothesis's when it explains a failure)."""


def _inner(obj: object) -> object:
    """The body a Hypothesis test runs for each example (None for other tests)."""
    return getattr(getattr(obj, "hypothesis", None), "inner_test", None)


def _through(hook: Any, body: Callable[[], object]) -> None:
    """What pytest does with a hook wrapper: enter it, run what it wraps, leave it."""
    next(hook)
    body()
    with pytest.raises(StopIteration):
        hook.send(None)


def _protocol(obj: object, call: Callable[[], object], seen: list[object]) -> None:
    """One test's run through the plugin: setup, call and teardown, and pytest's work between."""
    item: Any = SimpleNamespace(obj=obj, stash=pytest.Stash())

    def phases() -> None:
        seen.append(("between", sys.gettrace()))
        _through(coverage_scope.pytest_runtest_setup(item), lambda: seen.append(sys.gettrace()))
        seen.append(("between", sys.gettrace()))
        _through(coverage_scope.pytest_runtest_call(item), call)
        seen.append(("between", sys.gettrace()))
        _through(coverage_scope.pytest_runtest_teardown(item), lambda: seen.append(sys.gettrace()))
        seen.append(("between", sys.gettrace()))

    _through(coverage_scope.pytest_runtest_protocol(item), phases)


@pytest.fixture
def traced():
    """This thread under `_tracer` for the test (coverage's own tracer is put back after)."""
    before = sys.gettrace()
    sys.settrace(_tracer)
    try:
        yield _tracer
    finally:
        sys.settrace(before)


def _between(seen: list[object]) -> list[object]:
    return [s for s in seen if isinstance(s, tuple)]


def test_the_phases_run_traced_and_what_pytest_does_around_them_does_not(traced):
    seen: list[object] = []
    _protocol(lambda: None, lambda: seen.append(sys.gettrace()), seen)
    assert [s for s in seen if not isinstance(s, tuple)] == [traced] * 3
    assert _between(seen) == [("between", None)] * 4
    assert sys.gettrace() is traced


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
    _protocol(prop, prop, [])
    assert bodies == [traced] * EXAMPLES
    assert drawn == [None] * EXAMPLES
    assert _inner(prop) is inner
    assert sys.gettrace() is traced


def test_a_body_already_under_another_tracer_is_left_to_it(traced):
    bodies: list[object] = []

    @settings(max_examples=EXAMPLES, database=None)
    @given(st.integers())
    def prop(n: int) -> None:
        bodies.append(sys.gettrace())

    def under_other() -> None:
        sys.settrace(_other)
        try:
            prop()
        finally:
            sys.settrace(None)

    _protocol(prop, under_other, [])
    assert bodies == [_other] * EXAMPLES
    assert sys.gettrace() is traced


def test_a_coverage_tracer_a_phase_starts_is_the_one_kept(traced):
    """pytest-cov's `no_cover` pause and resume, say, starts a new tracer."""
    new = _CoverageTracer()
    seen: list[object] = []
    _protocol(lambda: None, lambda: sys.settrace(new), seen)
    assert [s for s in seen if not isinstance(s, tuple)] == [traced, new]
    assert _between(seen) == [("between", None)] * 4
    assert sys.gettrace() is new


def test_a_debugger_a_phase_starts_is_left_on(traced):
    """`breakpoint()` in a test: pdb's tracer is neither kept for later nor turned off."""
    seen: list[object] = []
    _protocol(lambda: None, lambda: sys.settrace(_other), seen)
    assert seen[3] == ("between", _other)  # after the call: still the debugger's
    assert seen[4] is traced  # the teardown: coverage's again
    assert sys.gettrace() is traced


def test_an_async_property_test_is_traced_for_its_whole_call(traced):
    """Its body runs in the event loop after `inner_test` returns: a wrapper would miss it."""

    @given(st.integers())
    async def prop(n: int) -> None:
        """An async property test (pytest-asyncio runs its coroutines)."""

    inner = _inner(prop)
    seen: list[object] = []
    _protocol(prop, lambda: seen.append(sys.gettrace()), seen)
    assert [s for s in seen if not isinstance(s, tuple)] == [traced] * 3
    assert _inner(prop) is inner


@pytest.mark.parametrize(
    ("tracer", "ours"),
    [
        pytest.param(CTracer(), True, id="coverage's C tracer"),
        pytest.param(PyTracer()._trace, True, id="coverage's Python tracer"),
        pytest.param(_tracer, True, id="the stand-in for coverage's"),
        pytest.param(_other, False, id="another tool's"),
        pytest.param(None, False, id="none"),
    ],
)
def test_coverages_tracers_are_told_from_others(tracer, ours):
    assert coverage_scope.is_coverage(tracer) is ours


def test_another_tools_tracer_is_left_on_throughout():
    before = sys.gettrace()
    sys.settrace(_other)
    try:
        seen: list[object] = []
        _protocol(lambda: None, lambda: seen.append(sys.gettrace()), seen)
        assert set(seen) == {_other, ("between", _other)}
    finally:
        sys.settrace(before)


@pytest.mark.parametrize(
    "obj",
    [
        pytest.param(lambda: None, id="a plain test"),
        pytest.param(given(st.integers())(lambda _n: None), id="a Hypothesis test"),
    ],
)
def test_nothing_changes_when_nothing_traces(obj):
    before = sys.gettrace()
    sys.settrace(None)
    try:
        inner = _inner(obj)
        seen: list[object] = []
        _protocol(obj, lambda: seen.append(sys.gettrace()), seen)
        assert set(seen) == {None, ("between", None)}
        assert _inner(obj) is inner
    finally:
        sys.settrace(before)
