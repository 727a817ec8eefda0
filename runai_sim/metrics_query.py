"""The metrics query of the simulated API: metric types, a time window, samples, and the series."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from runai_sim.filters import QueryError, int_param, item_datetime, parse_datetime

if TYPE_CHECKING:
    from starlette.datastructures import QueryParams

__all__ = ["METRIC_TYPES", "MetricsQuery", "parse_metrics_query", "select_measurements"]

METRIC_TYPES = frozenset(
    "GPU_UTILIZATION GPU_MEMORY_USAGE_BYTES GPU_MEMORY_REQUEST_BYTES CPU_USAGE_CORES "  # noqa: SIM905 - a word list reads better.
    "CPU_REQUEST_CORES CPU_LIMIT_CORES CPU_MEMORY_USAGE_BYTES CPU_MEMORY_REQUEST_BYTES "
    "CPU_MEMORY_LIMIT_BYTES POD_COUNT RUNNING_POD_COUNT GPU_ALLOCATION NIM_NUM_REQUESTS_RUNNING "
    "NIM_NUM_REQUESTS_WAITING NIM_NUM_REQUEST_MAX NIM_REQUEST_SUCCESS_TOTAL "
    "NIM_REQUEST_FAILURE_TOTAL NIM_GPU_CACHE_USAGE_PERC NIM_TIME_TO_FIRST_TOKEN_SECONDS "
    "NIM_E2E_REQUEST_LATENCY_SECONDS NIM_TIME_TO_FIRST_TOKEN_SECONDS_PERCENTILES "
    "NIM_E2E_REQUEST_LATENCY_SECONDS_PERCENTILES NVLINK_BANDWIDTH_TOTAL".split()
)


@dataclass(frozen=True)
class MetricsQuery:
    """The validated query of `GET /api/v1/workloads/{id}/metrics`."""

    types: list[str]
    start: datetime
    end: datetime
    samples: int


def _required_time(params: QueryParams, name: str) -> datetime:
    raw = params.get(name)
    if not raw:
        raise QueryError(f"Missing required parameter {name}", "Required parameter is missing")
    try:
        return parse_datetime(raw)
    except ValueError:
        raise QueryError(f"{name} must be an ISO-8601 date-time, got {raw!r}") from None


def parse_metrics_query(
    params: QueryParams, allowed: frozenset[str] = METRIC_TYPES
) -> MetricsQuery:
    """Validate `metricType` (each in `allowed`), `start`, `end` and `numberOfSamples`."""
    types = [t.strip() for raw in params.getlist("metricType") for t in raw.split(",") if t.strip()]
    if not types:
        raise QueryError("Missing required parameter metricType", "Required parameter is missing")
    unknown = [t for t in types if t not in allowed]
    if unknown:
        raise QueryError(f"Invalid metricType {', '.join(unknown)}")
    start, end = _required_time(params, "start"), _required_time(params, "end")
    if start > end:
        raise QueryError("start must not be after end")
    samples = int_param(params, "numberOfSamples", 20, 0, 1000)
    return MetricsQuery(list(dict.fromkeys(types)), start, end, samples)


def select_measurements(
    series: Sequence[Mapping[str, Any]], query: MetricsQuery
) -> list[dict[str, Any]]:
    """The requested series (in request order) with only the values inside [start, end]."""
    out: list[dict[str, Any]] = []
    for metric_type in query.types:
        matching = [s for s in series if s.get("type") == metric_type]
        if not matching:
            out.append({"type": metric_type, "labels": None, "values": []})
        for item in matching:
            values = [
                value
                for value in item.get("values") or []
                if (when := item_datetime(value.get("timestamp"))) is not None
                and query.start <= when <= query.end
            ]
            out.append({**item, "values": values})
    return out
