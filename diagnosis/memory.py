"""CPU-memory figures for OOM questions: request and limit as configured, peak as measured.

The limit is the OOM ceiling and the request only the reservation floor (the seed). A peak
is only ever taken from `CPU_MEMORY_USAGE_BYTES` samples; request, limit or allocation are
never presented as a measured peak, and an empty series is said out loud.
"""

from __future__ import annotations

from datetime import datetime

from diagnosis.evidence import Evidence
from diagnosis.quantity import format_bytes, parse_quantity
from diagnosis.report import EvidenceLine, MemoryFigures, MemorySample
from diagnosis.runai.models import Resources

__all__ = ["USAGE", "memory_evidence"]

USAGE = "CPU_MEMORY_USAGE_BYTES"
LIMIT = "CPU_MEMORY_LIMIT_BYTES"
SPEC = "get_workload_spec"
PODS = "get_workload_pods"
METRICS = "get_workload_metrics"


def _pair(resources: Resources | None) -> tuple[int | None, int | None]:
    if resources is None or resources.cpu_memory is None:
        return None, None
    mem = resources.cpu_memory
    return parse_quantity(mem.request), parse_quantity(mem.limit)


def _configured(ev: Evidence, container: str | None) -> tuple[int | None, int | None, str | None]:
    """Request and limit of the killed container (Kubernetes), else the spec, pods, workload."""
    if container is not None and container in ev.container_memory:
        raw_request, raw_limit, cited = ev.container_memory[container]
        return parse_quantity(raw_request), parse_quantity(raw_limit), cited
    compute = ev.spec.spec.compute if ev.spec and ev.spec.spec else None
    if compute and (compute.cpu_memory_request or compute.cpu_memory_limit):
        return (
            parse_quantity(compute.cpu_memory_request),
            parse_quantity(compute.cpu_memory_limit),
            SPEC,
        )
    for pod in ev.pods or ():
        request, limit = _pair(pod.requested_resources)
        if request is not None or limit is not None:
            return request, limit, PODS
    request, limit = _pair(
        ev.workload.pods_requested_resources or ev.workload.workload_requested_resources
    )
    if request is not None or limit is not None:
        return request, limit, "get_workload_status"
    return None, None, None


def _usage(ev: Evidence) -> tuple[int | None, tuple[MemorySample, ...]]:
    """The peak of every usage sample, and the timestamped ones as one series (max per instant)."""
    values: list[int] = []
    at: dict[datetime, int] = {}
    for series in ev.metrics or ():
        if series.type != USAGE:
            continue
        for sample in series.values:
            parsed = parse_quantity(sample.value)
            if parsed is None:
                continue
            values.append(parsed)
            if sample.timestamp is not None:
                at[sample.timestamp] = max(parsed, at.get(sample.timestamp, parsed))
    samples = tuple(MemorySample(at=t, bytes=at[t]) for t in sorted(at))
    return (max(values) if values else None), samples


def memory_evidence(
    ev: Evidence, container: str | None = None
) -> tuple[MemoryFigures, list[EvidenceLine], list[str]]:
    """Memory figures (of `container` when known), the lines citing them, what is missing."""
    request, limit, source = _configured(ev, container)
    lines: list[EvidenceLine] = []
    missing: list[str] = []
    if source is not None:
        shown = " / ".join(
            format_bytes(v) if v is not None else "not set" for v in (request, limit)
        )
        whose = f" of container {container}" if container in ev.container_memory else ""
        lines.append(EvidenceLine(text=f"CPU-memory request/limit{whose}: {shown}", source=source))
    else:
        missing.append("CPU-memory request and limit (not in the spec, pods or workload record)")
    if limit is None and source is not None:
        missing.append("CPU-memory limit (none configured: the node's memory is the ceiling)")
    peak, series = _usage(ev)
    if ev.metrics_requested and ev.metrics is None:
        missing.append("CPU-memory usage (metrics unavailable)")
    elif ev.metrics_requested and peak is None:
        lines.append(
            EvidenceLine(
                text="No CPU-memory samples were recorded before termination "
                "(no peak observed; the job may have been too short for the sampling interval)",
                source=METRICS,
            )
        )
        missing.append("peak CPU-memory usage (empty metrics series)")
    elif peak is not None:
        ratio = f" = {peak / limit:.0%} of the limit" if limit else ""
        lines.append(
            EvidenceLine(text=f"Peak CPU-memory usage: {format_bytes(peak)}{ratio}", source=METRICS)
        )
    figures = MemoryFigures(
        request_bytes=request, limit_bytes=limit, peak_bytes=peak, series=series
    )
    return figures, lines, missing
