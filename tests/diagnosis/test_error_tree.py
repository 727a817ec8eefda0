"""One exception tree: every exception diagnosis/ defines is a `DiagnosisError`, and documented."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import diagnosis
from diagnosis import errors
from diagnosis.errors import DiagnosisError


def _exceptions() -> list[type[BaseException]]:
    found: list[type[BaseException]] = []
    for info in pkgutil.walk_packages(diagnosis.__path__, "diagnosis."):
        module = importlib.import_module(info.name)
        found.extend(
            obj
            for _, obj in inspect.getmembers(module, inspect.isclass)
            if issubclass(obj, BaseException) and obj.__module__ == info.name
        )
    return found


def test_every_exception_has_the_one_root():
    found = _exceptions()
    assert len(found) > len(errors.__all__), "the walk is expected to reach every module"
    assert [e.__qualname__ for e in found if not issubclass(e, DiagnosisError)] == []


def test_the_tree_names_every_public_exception():
    doc = errors.__doc__ or ""
    public = {e.__name__ for e in _exceptions() if not e.__name__.startswith("_")}
    assert {name for name in public if name not in doc} == set()
