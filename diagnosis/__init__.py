"""runai-why's diagnosis engine: why did this Run:ai workload fail?

The curated public API. `bot/` (and anything else) imports only these names; everything
else in the package is an implementation detail.

    async with RunaiClient(config) as runai:
        report = await diagnose(DiagnosisRequest(cluster_id=..., workload_id=...), runai=runai)
"""

from diagnosis.errors import (
    AuthError,
    DiagnosisError,
    InvalidRequest,
    NotFound,
    UpstreamError,
    UpstreamTimeout,
    UpstreamUnavailable,
)
from diagnosis.pipeline import diagnose
from diagnosis.report import (
    Category,
    EvidenceLine,
    MemoryFigures,
    MemorySample,
    Outcome,
    Recurrence,
    Report,
    WorkloadRef,
)
from diagnosis.request import DEFAULT_LOOKBACK, DiagnosisRequest, Symptom, parse_lookback
from diagnosis.runai.client import RunaiClient
from diagnosis.runai.config import RunaiConfig
from diagnosis.runai.models import Cluster
from diagnosis.runai.reader import RunaiReader

__all__ = [
    "DEFAULT_LOOKBACK",
    "AuthError",
    "Category",
    "Cluster",
    "DiagnosisError",
    "DiagnosisRequest",
    "EvidenceLine",
    "InvalidRequest",
    "MemoryFigures",
    "MemorySample",
    "NotFound",
    "Outcome",
    "Recurrence",
    "Report",
    "RunaiClient",
    "RunaiConfig",
    "RunaiReader",
    "Symptom",
    "UpstreamError",
    "UpstreamTimeout",
    "UpstreamUnavailable",
    "WorkloadRef",
    "diagnose",
    "parse_lookback",
]
