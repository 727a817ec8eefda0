"""tests/preload.py: what collection built is out of the collector's passes, tests' garbage not."""

from __future__ import annotations

import gc
import weakref

import pytest


def test_the_collected_items_are_frozen(request: pytest.FixtureRequest) -> None:
    tracked = {id(obj) for obj in gc.get_objects()}  # every generation but the frozen one
    assert gc.get_freeze_count() > 0
    assert id(request.node) not in tracked
    assert id(test_the_collected_items_are_frozen) not in tracked


class _Cycle:
    """Refers to itself, so only the garbage collector can free it."""

    def __init__(self) -> None:
        self.me = self


def test_a_cycle_a_test_makes_is_still_collected() -> None:
    cycle = _Cycle()
    gone = weakref.ref(cycle)
    del cycle
    gc.collect()
    assert gone() is None
