"""Diagnoses: how many run at once, how long one may take, how long its report is reused."""

from __future__ import annotations

from pydantic import Field

from bot.config.base import Concern
from diagnosis import DEFAULT_DEADLINE_S

__all__ = ["DEFAULT_MAX_CONCURRENT_DIAGNOSES", "DiagnosisSettings"]

# A diagnosis spends most of its time waiting on Run:ai: ~20 ms of CPU across a chain of
# 5 levels (0.25 s at 50 ms a call). A process keeps its core busy only with about
# chain / CPU of them in flight; at 8, the benchmark's 200 distinct asks left a worker's
# core idle a quarter of the time (`python3 dev.py bench --only distinct`).
DEFAULT_MAX_CONCURRENT_DIAGNOSES = 32


class DiagnosisSettings(Concern):
    """`MAX_CONCURRENT_DIAGNOSES` and `DIAGNOSIS_*` (one diagnosis per storm, bounded in time)."""

    max_concurrent: int = Field(
        default=DEFAULT_MAX_CONCURRENT_DIAGNOSES,
        ge=1,
        le=100,
        validation_alias="max_concurrent_diagnoses",
        description="`MAX_CONCURRENT_DIAGNOSES`, diagnoses running at once in one process.",
    )
    deadline_s: float = Field(
        default=DEFAULT_DEADLINE_S,
        gt=0,
        le=600,
        validation_alias="diagnosis_deadline_s",
        description=(
            "`DIAGNOSIS_DEADLINE_S`, the time one diagnosis may take; what has not answered "
            "by then is reported as a gap."
        ),
    )
    cache_ttl_s: float = Field(
        default=30.0,
        ge=0,
        le=3600,
        validation_alias="diagnosis_cache_ttl_s",
        description=(
            "`DIAGNOSIS_CACHE_TTL_S`, how long a finished report is reused for the same "
            "workload in the same state (0: shared only by concurrent askers)."
        ),
    )
