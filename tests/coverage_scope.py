"""Under coverage, only a test's own phases are traced, and a property test's body alone.

On Python 3.11 coverage measures with a trace function, which slows down every Python call
while it is on, not only calls into the measured packages. Two kinds of work run none of our
code but paid for it:

- pytest's own work around each test (its hooks, and under xdist, sending each report to the
  controller): this plugin takes the thread's tracer off for a test's whole run and puts it
  back for its setup, call and teardown, where fixtures and tests run;
- Hypothesis drawing examples, most of a property test's time: the tracer stays off for the
  call and is put back around each run of the test body (Hypothesis's `inner_test` hook).
  Our code that a strategy itself calls while drawing (a `.map(escape)`, a model built by
  `st.builds`) is not measured there: the gate counts what tests run. An `async` property
  test's body runs later, in the event loop, so its whole call is traced as before.

Coverage sees every line the tests run of our code; only the current thread's tracer is
touched, so other threads keep theirs. Nothing changes when coverage is not what traces (no
`--cov`, or a debugger's tracer), when coverage measures without a trace function
(`sys.monitoring` on 3.12+), or when a body already runs under another tracer. Loaded with
`-p tests.coverage_scope` (pyproject.toml).
"""

from __future__ import annotations

import functools
import inspect
import sys
from collections.abc import Callable, Generator
from typing import Any

import pytest

_tracer_key = pytest.StashKey[Any]()

Phase = Generator[None, object, object]


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item) -> Phase:
    """Run the test with coverage's tracer off, except in its phases (below)."""
    tracer = _coverage_tracer()
    if tracer is None:
        return (yield)
    item.stash[_tracer_key] = tracer
    sys.settrace(None)
    try:
        return (yield)
    finally:
        sys.settrace(item.stash[_tracer_key])


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> Phase:
    """Fixtures set up traced."""
    return (yield from _traced_phase(item))


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_call(item: pytest.Item) -> Phase:
    """The test traced; a Hypothesis test's body traced, its example generation not."""
    given = getattr(getattr(item, "obj", None), "hypothesis", None)
    tracer = item.stash.get(_tracer_key, None)
    if given is None or tracer is None or inspect.iscoroutinefunction(given.inner_test):
        return (yield from _traced_phase(item))
    inner = given.inner_test
    given.inner_test = _traced(inner, tracer)
    try:
        return (yield)
    finally:
        given.inner_test = inner


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_teardown(item: pytest.Item) -> Phase:
    """Fixtures torn down traced."""
    return (yield from _traced_phase(item))


def _coverage_tracer() -> Any:
    """This thread's trace function if it is coverage's, or None."""
    tracer = sys.gettrace()
    return tracer if is_coverage(tracer) else None


def is_coverage(tracer: object) -> bool:
    """Whether `tracer` is coverage's: its C tracer, or its Python tracer's bound method."""
    owner = getattr(tracer, "__self__", tracer)
    module = type(owner).__module__  # "coverage" (CTracer), "coverage.pytracer" (PyTracer)
    return module == "coverage" or module.startswith("coverage.")


def _traced_phase(item: pytest.Item) -> Phase:
    """One phase under the test's tracer (coverage's new one, should the phase start one).

    A debugger's tracer turned on in the phase (`breakpoint()`) is left on.
    """
    tracer = item.stash.get(_tracer_key, None)
    if tracer is None:
        return (yield)
    sys.settrace(tracer)
    try:
        return (yield)
    finally:
        if is_coverage(now := sys.gettrace()):
            item.stash[_tracer_key] = now
            sys.settrace(None)


def _traced(test: Callable[..., Any], tracer: Any) -> Callable[..., Any]:
    """`test`, run with `tracer` on in this thread (unless another tracer is on already)."""

    @functools.wraps(test)
    def traced(*args: Any, **kwargs: Any) -> Any:
        if sys.gettrace() is not None:  # e.g. Hypothesis explaining a failure: leave it be
            return test(*args, **kwargs)
        sys.settrace(tracer)
        try:
            return test(*args, **kwargs)
        finally:
            sys.settrace(None)

    return traced
