"""Under coverage, Hypothesis draws its examples untraced; each example's test body is traced.

On Python 3.11 coverage measures with a trace function, which slows down every Python call
while it is on, not only calls into the measured packages. Most of a property test's time is
Hypothesis drawing data (its own code): traced, the property tests took twice as long. This
plugin (`-p tests.coverage_scope` in pyproject.toml) takes the current thread's trace function
off for a Hypothesis test and puts it back around each call of the test body, so coverage
still sees every line our code runs for every example. Other threads keep theirs.

It changes nothing when nothing traces (no `--cov`), when coverage measures without a trace
function (`sys.monitoring` on 3.12+), or when a test body already runs under another tracer.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Generator
from typing import Any

import pytest


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, object, object]:
    """Run a Hypothesis test's generation untraced and its body under the same tracer."""
    given = getattr(getattr(item, "obj", None), "hypothesis", None)
    tracer = sys.gettrace()
    if given is None or tracer is None:
        return (yield)
    inner = given.inner_test
    given.inner_test = _traced(inner, tracer)
    sys.settrace(None)
    try:
        return (yield)
    finally:
        sys.settrace(tracer)
        given.inner_test = inner


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
