"""One exception tree: every exception diagnosis/ defines is a `DiagnosisError`, and documented."""

from __future__ import annotations

import diagnosis
from diagnosis import errors
from diagnosis.errors import DiagnosisError
from tests.exception_tree import defined_exceptions


def _exceptions() -> list[type[BaseException]]:
    return defined_exceptions(diagnosis)


def test_every_exception_has_the_one_root():
    found = _exceptions()
    assert len(found) > len(errors.__all__), "the walk is expected to reach every module"
    assert [e.__qualname__ for e in found if not issubclass(e, DiagnosisError)] == []


def test_the_tree_names_every_public_exception():
    doc = errors.__doc__ or ""
    public = {e.__name__ for e in _exceptions() if not e.__name__.startswith("_")}
    assert {name for name in public if name not in doc} == set()
