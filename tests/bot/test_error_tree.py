"""One exception tree: every exception bot/ defines is a `BotError`, and documented."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

from redis.exceptions import MaxConnectionsError

import bot
from bot import errors
from bot.conversation.store import StoreUnavailable
from bot.durable.connect import PoolExhausted
from bot.errors import BotError
from bot.work import QueueUnavailable


def _exceptions() -> list[type[BaseException]]:
    found: list[type[BaseException]] = []
    for info in pkgutil.walk_packages(bot.__path__, "bot."):
        if info.name == "bot.__main__":
            continue  # runs the command line when imported
        module = importlib.import_module(info.name)
        found.extend(
            obj
            for _, obj in inspect.getmembers(module, inspect.isclass)
            if issubclass(obj, BaseException) and obj.__module__ == info.name
        )
    return found


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
