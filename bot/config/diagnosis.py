"""Diagnoses: how many run at once, how long one may take, how long its report is reused."""

from __future__ import annotations

from pydantic import Field

from bot.config.base import Concern
from diagnosis import DEFAULT_DEADLINE_S

__all__ = [
    "EMBEDDED_MAX_CONCURRENT_DIAGNOSES",
    "WORKER_MAX_CONCURRENT_DIAGNOSES",
    "DiagnosisSettings",
]

# A diagnosis spends most of its time waiting on Run:ai: ~20 ms of CPU across a chain of
# 5 levels (0.25 s at 50 ms a call), so a process keeps its core busy only with about a
# dozen in flight. At 8, the benchmark's 200 distinct asks left a worker's core idle a
# quarter of the time; 16 and 32 keep it busy (`python3 dev.py bench --only distinct`).
# More is not better: the in-flight diagnoses of every process share the Run:ai call slots
# (`RUNAI_MAX_CONCURRENT_CALLS`), and a diagnosis waiting for one spends its deadline
# there, so with a slow control plane a higher number turns queued asks into partial answers.
WORKER_MAX_CONCURRENT_DIAGNOSES = 16
"""In a `runai-why worker` process, which does nothing else."""
EMBEDDED_MAX_CONCURRENT_DIAGNOSES = 8
"""In `serve`'s embedded worker, whose event loop also acknowledges every request."""


class DiagnosisSettings(Concern):
    """`MAX_CONCURRENT_DIAGNOSES` and `DIAGNOSIS_*` (one diagnosis per storm, bounded in time)."""

    max_concurrent: int | None = Field(
        default=None,
        ge=1,
        le=100,
        validation_alias="max_concurrent_diagnoses",
        description=(
            "`MAX_CONCURRENT_DIAGNOSES`, diagnoses running at once in one process; unset, "
            f"{WORKER_MAX_CONCURRENT_DIAGNOSES} in a `runai-why worker` process and "
            f"{EMBEDDED_MAX_CONCURRENT_DIAGNOSES} in `serve` (its loop also acknowledges)."
        ),
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

    def concurrency(self, *, dedicated: bool) -> int:
        """Diagnoses one process runs at once: the setting, else its role's default."""
        if self.max_concurrent is not None:
            return self.max_concurrent
        return WORKER_MAX_CONCURRENT_DIAGNOSES if dedicated else EMBEDDED_MAX_CONCURRENT_DIAGNOSES
