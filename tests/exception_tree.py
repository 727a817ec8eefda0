"""Every exception class a package defines, found by importing each of its modules."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from types import ModuleType


def defined_exceptions(
    package: ModuleType, *, skip: frozenset[str] = frozenset()
) -> list[type[BaseException]]:
    """The exception classes defined in `package`'s modules (not those they import).

    `skip`: modules not to import (one that runs a program when imported).
    """
    found: list[type[BaseException]] = []
    for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
        if info.name in skip:
            continue
        module = importlib.import_module(info.name)
        found.extend(
            obj
            for _, obj in inspect.getmembers(module, inspect.isclass)
            if issubclass(obj, BaseException) and obj.__module__ == info.name
        )
    return found
