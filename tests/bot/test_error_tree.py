"""One exception tree: every exception bot/ defines is a `BotError`, and documented."""

from __future__ import annotations

from redis.exceptions import MaxConnectionsError

import bot
from bot import errors
from bot.conversation.store import StoreUnavailable
from bot.durable.connect import PoolExhausted
from bot.errors import BotError
from bot.work import QueueUnavailable
from tests.exception_tree import defined_exceptions


def _exceptions() -> list[type[BaseException]]:
    return defined_exceptions(bot, skip=frozenset({"bot.__main__"}))


def test_every_exception_has_the_one_root():
    found = _exceptions()
    assert len(found) >= 16, "the walk is expected to reach every module"
    assert [e.__qualname__ for e in found if not issubclass(e, BotError)] == []


def test_the_tree_names_every_exception():
    doc = errors.__doc__ or ""
    assert {e.__name__ for e in _exceptions() if e.__name__ not in doc} == set()


def test_other_bases_are_kept():
    assert issubclass(PoolExhausted, MaxConnectionsError)
    assert issubclass(QueueUnavailable, StoreUnavailable)
