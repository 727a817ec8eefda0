"""CPU-memory figures of the container that was killed: request, limit, measured peak.

Computed once per finding (by the OOM and UNKNOWN rules) and carried on it, so that the
headline, the evidence, the advice and `--json` name the same limit. The limit is the OOM
ceiling and the request only the reservation floor (NVIDIA's runai-diagnose-failed-workload
skill). The limit is that of the killed container: an init container's own limit, from the
Kubernetes pod spec when Tier 2 read it; where the pod spec and the Run:ai spec disagree the
pod spec wins (it is what the kernel enforced) and the report says so. A peak is only ever
taken from `CPU_MEMORY_USAGE_BYTES` samples; request, limit or allocation are never
presented as a measured peak, and an empty series is said out loud.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from diagnosis.evidence import Evidence
from diagnosis.quantity import format_bytes, parse_quantity
from diagnosis.report import EvidenceLine
from diagnosis.report_parts import MemoryFigures, MemorySample
from diagnosis.runai.models import Resources
from diagnosis.runs import run_of

__all__ = ["USAGE", "MemoryEvidence", "memory_evidence"]

USAGE = "CPU_MEMORY_USAGE_BYTES"
LIMIT = "CPU_MEMORY_LIMIT_BYTES"
SPEC = "get_workload_spec"
PODS = "get_workload_pods"
METRICS = "get_workload_metrics"


#: What a configuration that was read and sets no limit says: a fact, cited, never a gap.
_NO_LIMIT = " (the node's memory is the ceiling)"


@dataclass(frozen=True)
class MemoryEvidence:
    """The figures, the lines that cite them, and what could not be measured."""

    figures: MemoryFigures
    lines: list[EvidenceLine] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)

    @property
    def limit_unset(self) -> bool:
        """Whether the configuration was read and sets no CPU-memory limit (not: unread)."""
        return self.figures.configured_read and self.figures.limit_bytes is None


#: A quantity as upstream gave it: None when it gave none.
_Raw = str | float | None


def _pair(resources: Resources | None) -> tuple[_Raw, _Raw]:
    if resources is None or resources.cpu_memory is None:
        return None, None
    return resources.cpu_memory.request, resources.cpu_memory.limit


def _runai(ev: Evidence) -> tuple[_Raw, _Raw, str | None]:
    """Request and limit as Run:ai gives them: submitted spec, else pods, else the workload."""
    compute = ev.spec.spec.compute if ev.spec and ev.spec.spec else None
    if compute and (compute.cpu_memory_request or compute.cpu_memory_limit):
        return compute.cpu_memory_request, compute.cpu_memory_limit, SPEC
    for pod in ev.pods or ():
        request, limit = _pair(pod.requested_resources)
        if parse_quantity(request) is not None or parse_quantity(limit) is not None:
            return request, limit, PODS
    request, limit = _pair(
        ev.workload.pods_requested_resources or ev.workload.workload_requested_resources
    )
    if parse_quantity(request) is not None or parse_quantity(limit) is not None:
        return request, limit, "get_workload_status"
    return None, None, None


def killed_container(ev: Evidence, container: str | None) -> str | None:
    """The container whose figures apply: the named one, else the only one the pod spec has."""
    if container is None and len(ev.container_memory) == 1:
        return next(iter(ev.container_memory))
    return container


def _samples(ev: Evidence) -> tuple[list[int], list[MemorySample], bool]:
    """The run's usage values, the dated ones as a series, and whether others were left out.

    The values are the peak's candidates. Only samples of the run diagnosed count
    (`diagnosis.runs`): an earlier run's peak in the lookback says nothing about this failure.
    The series is oldest first with one sample per instant, the highest of the workload's
    series (its pods) at that instant: what the chart and the sparkline draw.
    """
    run = run_of(ev)
    other_run = False
    values: list[int] = []
    highest: dict[datetime, int] = {}
    for series in ev.metrics or ():
        if series.type != USAGE:
            continue
        for sample in series.values:
            parsed = parse_quantity(sample.value)
            if parsed is None:
                continue
            if not run.holds(sample.timestamp):
                other_run = True
                continue
            values.append(parsed)
            if sample.timestamp is not None:
                highest[sample.timestamp] = max(parsed, highest.get(sample.timestamp, parsed))
    dated = [MemorySample(at=t, usage_bytes=highest[t]) for t in sorted(highest)]
    return values, dated, other_run


def _given(raw: _Raw) -> bool:
    """Whether upstream gave a value at all (one that is no quantity was given)."""
    return raw is not None and raw != ""


def _shown(request: _Raw, limit: _Raw) -> str:
    """`32 GiB / not set`: each figure, "not set" when none is given, "unreadable" when bad."""
    return " / ".join(
        format_bytes(value)
        if (value := parse_quantity(raw)) is not None
        else ("unreadable" if _given(raw) else "not set")
        for raw in (request, limit)
    )


def _read(
    what: str, raw: tuple[_Raw, _Raw], source: str
) -> tuple[int | None, int | None, bool, EvidenceLine, list[str]]:
    """Request and limit as read from `source`: figures, whether both were read, line, gaps.

    A limit the configuration does not set is a fact, said on the line; a value that is no
    quantity is not read (a gap), so that None still means "not set" only when it was read.
    """
    request, limit = (parse_quantity(r) for r in raw)
    names = ("request", "limit")
    bad = [
        n for n, r, v in zip(names, raw, (request, limit), strict=True) if _given(r) and v is None
    ]
    said = _NO_LIMIT if not _given(raw[1]) else ""
    line = EvidenceLine(text=f"{what}: {_shown(*raw)}{said}", source=source)
    missing = [f"CPU-memory {' and '.join(bad)} ({source} gave no quantity)"] if bad else []
    return request, limit, not bad, line, missing


def _configured(
    ev: Evidence, container: str | None, *, init: bool
) -> tuple[int | None, int | None, bool, list[EvidenceLine], list[str]]:
    """Request, limit, whether they were read (None is then "not set"), their lines, gaps."""
    r_request, r_limit, r_source = (None, None, None) if init else _runai(ev)
    if container is not None and container in ev.container_memory:
        raw_request, raw_limit, cited = ev.container_memory[container]
        kind = "init container" if init else "container"
        what = f"CPU-memory request/limit of {kind} {container}"
        request, limit, read, line, missing = _read(what, (raw_request, raw_limit), cited)
        lines = [line]
        runai = (parse_quantity(r_request), parse_quantity(r_limit))
        if r_source is not None and runai != (request, limit):
            lines.append(
                EvidenceLine(
                    text=f"The Run:ai spec says {_shown(r_request, r_limit)}, but the Kubernetes "
                    f"pod spec ({_shown(raw_request, raw_limit)}) is what was enforced, so its "
                    "figures are used",
                    source=r_source,
                )
            )
        return request, limit, read, lines, missing
    if init:
        who = f"init container {container}" if container else "the init container"
        gap = (
            f"CPU-memory request and limit of {who} (Kubernetes pod spec not read; the Run:ai "
            "spec's figures are the main container's)"
        )
        return None, None, False, [], [gap]
    if r_source is None:
        gap = "CPU-memory request and limit (not in the spec, pods or workload record)"
        return None, None, False, [], [gap]
    request, limit, read, line, missing = _read(
        "CPU-memory request/limit", (r_request, r_limit), r_source
    )
    return request, limit, read, [line], missing


def memory_evidence(
    ev: Evidence, container: str | None = None, *, init: bool = False
) -> MemoryEvidence:
    """Memory figures of `container` (an init container when `init`), cited, with the gaps."""
    container = killed_container(ev, container)
    request, limit, read, lines, missing = _configured(ev, container, init=init)
    values, samples, other_run = _samples(ev)
    peak = max(values) if values else None
    if ev.metrics_requested and ev.metrics is None:
        missing.append("CPU-memory usage (metrics unavailable)")
    elif ev.metrics_requested and peak is None and other_run:
        lines.append(
            EvidenceLine(
                text="No CPU-memory samples were recorded in this run (those in the lookback "
                "are an earlier run's; no peak observed)",
                source=METRICS,
            )
        )
        missing.append("peak CPU-memory usage (no samples from this run)")
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
        request_bytes=request,
        limit_bytes=limit,
        peak_bytes=peak,
        container=container,
        samples=tuple(samples),
        configured_read=read,
    )
    return MemoryEvidence(figures=figures, lines=lines, missing=missing)
