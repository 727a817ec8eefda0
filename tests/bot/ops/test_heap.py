"""A serving process freezes what it built: start-up's garbage is collected, the rest skipped."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from bot.ops.heap import freeze_built_heap


class _Node:
    """An object in a reference cycle with itself: only the cyclic collector frees it."""

    def __init__(self) -> None:
        self.me = self


@pytest.fixture
def thawed() -> Iterator[None]:
    """The test process's heap is given back to the collector afterwards."""
    yield
    gc.unfreeze()


def test_start_up_garbage_is_collected_and_what_lives_is_frozen(thawed: None) -> None:
    garbage = _Node()
    gone = weakref.ref(garbage)
    del garbage
    kept = _Node()
    freeze_built_heap()
    assert gone() is None, "a cycle made while starting is not frozen for ever"
    assert gc.get_freeze_count() > 0
    assert not any(o is kept for o in gc.get_objects()), "collections no longer walk it"
    gc.unfreeze()
    assert any(o is kept for o in gc.get_objects())
