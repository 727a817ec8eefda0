"""The CPU-memory series on the report: what the chart and the sparkline draw."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from diagnosis.memory import memory_evidence
from diagnosis.report import Outcome, Report
from diagnosis.report_parts import MemoryFigures, MemorySample
from diagnosis.resolve import workload_ref
from diagnosis.runai.models import Measurement, MetricValue, Workload
from tests.factories import ago, evidence, iso, phase_update, workload

T0 = datetime(2025, 11, 4, 0, 0, tzinfo=UTC)
T1 = datetime(2025, 11, 4, 0, 10, tzinfo=UTC)


def _series(*values: tuple[str, datetime | None], kind: str = "CPU_MEMORY_USAGE_BYTES"):
    return Measurement(
        type=kind, values=tuple(MetricValue(value=v, timestamp=t) for v, t in values)
    )


def test_the_series_is_sorted_with_the_highest_sample_per_instant():
    ev = evidence(
        metrics=[
            _series(("300", T1), ("100", T0)),
            _series(("250", T1), ("150", T0), ("999", None)),  # a second pod; an untimed sample.
            _series(("5000", T0), kind="CPU_MEMORY_LIMIT_BYTES"),
        ],
        metrics_requested=True,
    )
    figures = memory_evidence(ev).figures
    assert figures.samples == (
        MemorySample(at=T0, usage_bytes=150),
        MemorySample(at=T1, usage_bytes=300),
    )
    assert figures.peak_bytes == 999  # the peak still counts every sample.


def test_no_metrics_no_series():
    figures = memory_evidence(evidence(metrics=None, metrics_requested=True)).figures
    assert figures.samples == ()


def test_the_json_contract_carries_the_series_it_was_measured_from():
    memory = MemoryFigures(
        request_bytes=1,
        limit_bytes=2,
        peak_bytes=2,
        container="trainer",
        samples=(MemorySample(at=T0, usage_bytes=2),),
        configured_read=True,
    )
    body = Report(outcome=Outcome.DIAGNOSED, memory=memory).to_json_dict("24h")
    assert body["memory"] == {
        "request_bytes": 1,
        "limit_bytes": 2,
        "peak_bytes": 2,
        "container": "trainer",
        "samples": [{"at": "2025-11-04T00:00:00Z", "usage_bytes": 2}],
        "killed_at": None,
        "configured_read": True,
    }
    json.dumps(body)


def test_a_candidate_carries_its_submission_and_phase_update_times():
    workload = Workload.model_validate(
        {
            "id": "w1",
            "name": "train",
            "clusterId": "c1",
            "phase": "Failed",
            "createdAt": "2025-11-04T00:17:57Z",
            "phaseUpdatedAt": "2025-11-04T08:52:01Z",
        }
    )
    ref = workload_ref(workload)
    assert ref.submitted_at == datetime(2025, 11, 4, 0, 17, 57, tzinfo=UTC)
    assert ref.phase_updated_at == datetime(2025, 11, 4, 8, 52, 1, tzinfo=UTC)


def test_an_earlier_runs_samples_are_not_this_failures_peak():
    """Resumed an hour ago and OOM-killed since: a run eight hours ago is not its peak."""
    history = [phase_update("Running", 60), phase_update("Failed", 8, "OOMKilled")]
    earlier = _series(("31000000000", ago(480)))
    this_run = _series(("2000000000", ago(30)))
    for metrics, peak in (([earlier, this_run], 2_000_000_000), ([earlier], None)):
        ev = evidence(
            workload(phase="Failed", phaseUpdatedAt=iso(ago(8))),
            history=history,
            metrics=metrics,
            metrics_requested=True,
        )
        found = memory_evidence(ev)
        assert found.figures.peak_bytes == peak
        assert [s.usage_bytes for s in found.figures.samples] == ([peak] if peak else [])
        if peak is None:
            assert "peak CPU-memory usage (no samples from this run)" in found.missing
