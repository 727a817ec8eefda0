"""A serving process freezes what it built: start-up's garbage is collected, the rest skipped.

Run in a process of its own: the test session freezes its own heap (`tests/preload.py`),
and thawing it here would undo that for every test after.
"""

from __future__ import annotations

import subprocess
import sys

_CHECK = """
import gc, weakref
from bot.ops.heap import freeze_built_heap

class Node:
    def __init__(self):
        self.me = self  # a cycle: only the cyclic collector frees it

garbage = Node()
gone = weakref.ref(garbage)
del garbage
kept = Node()
assert gc.get_freeze_count() == 0
freeze_built_heap()
assert gone() is None, "a cycle made while starting is not frozen for ever"
assert gc.get_freeze_count() > 0
assert not any(o is kept for o in gc.get_objects()), "collections no longer walk it"
"""


def test_start_up_garbage_is_collected_and_what_lives_is_frozen() -> None:
    done = subprocess.run(  # noqa: S603 - this interpreter, a fixed script
        [sys.executable, "-c", _CHECK], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
