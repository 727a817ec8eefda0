"""Request traces, stage timings, the canonical log line and the counting transport."""

from __future__ import annotations

import asyncio
import contextvars
import io
import json
from collections.abc import Iterator

import httpx
import pytest

from bot.ops.metrics import REGISTRY
from bot.ops.observe import (
    CANONICAL_EVENT,
    REQUEST_ID,
    ReplyClock,
    begin_request,
    current_trace,
    observe_stage,
    record_diagnosis,
    timed,
)
from bot.ops.upstream_metrics import CountingTransport, endpoint_template
from diagnosis import Category, EvidenceLine, Outcome, Report
from tests.bot.ops.logs import logging_to_a_string


@pytest.mark.parametrize(
    ("path", "template"),
    [
        ("/api/v1/workloads", "/api/v1/workloads"),
        ("/api/v1/workloads/3f1c0e9a-1b2c-4d5e-8f90-a1b2c3d4e5f6/events",
         "/api/v1/workloads/{id}/events"),
        ("/api/v1/workloads/trainings/3f1c0e9a-1b2c-4d5e-8f90-a1b2c3d4e5f6",
         "/api/v1/workloads/trainings/{id}"),
        ("/api/v1/namespaces/runai-nlp/pods/train-bert-0-0/log", "/api/v1/namespaces/{id}/pods/{id}/log"),
        ("/apis/events.k8s.io/v1/namespaces/ns/events", "/apis/events.k8s.io/v1/namespaces/{id}/events"),
        ("/api/v1/nodes/gpu-node-7", "/api/v1/nodes/{id}"),
        ("/k8s/clusters/c-m-42/api/v1/nodes", "/api/v1/nodes"),
        ("/proxy/apis/events.k8s.io/v1/events", "/apis/events.k8s.io/v1/events"),
        ("/healthz/x-1", "/{id}/{id}"),
        ("/", "/"),
    ],
)  # fmt: skip
def test_endpoints_are_templates_with_ids_replaced(path: str, template: str):
    assert endpoint_template(path) == template


def _calls(upstream: str, endpoint: str, status: str) -> float:
    labels = {"upstream": upstream, "endpoint": endpoint, "status": status}
    return REGISTRY.get_sample_value("runai_why_upstream_calls_total", labels) or 0.0


async def test_the_counting_transport_counts_each_call_by_status_or_error():
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/boom"):
            raise httpx.ConnectError("refused", request=request)
        return httpx.Response(404 if "missing" in request.url.path else 200)

    transport = CountingTransport(httpx.MockTransport(answer), "test-upstream")
    before = {s: _calls("test-upstream", "/api/v1/nodes/{id}", s) for s in ("200", "404", "error")}
    trace = begin_request("counting")
    async with httpx.AsyncClient(transport=transport, base_url="http://up") as client:
        await client.get("/api/v1/nodes/a")
        await client.get("/api/v1/nodes/b")
        await client.get("/api/v1/nodes/missing")
        with pytest.raises(httpx.ConnectError):
            await client.get("/api/v1/nodes/boom")
    after = {s: _calls("test-upstream", "/api/v1/nodes/{id}", s) for s in before}
    assert {s: after[s] - before[s] for s in before} == {"200": 2, "404": 1, "error": 1}
    assert trace.upstream_calls == 4


def _stage_count(stage: str) -> float:
    return REGISTRY.get_sample_value("runai_why_stage_seconds_count", {"stage": stage}) or 0.0


def test_stages_are_recorded_in_the_histogram_and_the_trace():
    def run() -> None:
        trace = begin_request("stages")
        before = _stage_count("render"), _stage_count("post"), _stage_count("queue_wait")
        clock = ReplyClock()
        with clock.rendering():
            pass
        clock.done()
        with timed("queue_wait"):
            pass
        observe_stage("queue_wait", 1.5)
        after = _stage_count("render"), _stage_count("post"), _stage_count("queue_wait")
        assert [a - b for a, b in zip(after, before, strict=True)] == [1, 1, 2]
        assert set(trace.timings) == {"render", "post", "queue_wait"}
        assert trace.timings["queue_wait"] >= 1.5
        with pytest.raises(ValueError, match="unknown stage 'lunch'"):
            observe_stage("lunch", 1.0)

    contextvars.copy_context().run(run)


def test_outside_a_request_a_stage_is_still_measured():
    def run() -> None:
        assert current_trace() is None
        before = _stage_count("classify")
        observe_stage("classify", 0.25)
        assert _stage_count("classify") - before == 1

    contextvars.Context().run(run)


async def test_the_trace_reaches_tasks_the_request_starts():
    trace = begin_request("parent")

    async def child() -> None:
        observe_stage("collect", 0.5)

    await asyncio.gather(child(), child())
    assert trace.timings["collect"] == 1.0


@pytest.fixture
def log_stream() -> Iterator[io.StringIO]:
    with logging_to_a_string("INFO") as stream:
        yield stream


def _diagnoses(outcome: str, category: str) -> float:
    labels = {"outcome": outcome, "category": category}
    return REGISTRY.get_sample_value("runai_why_diagnoses_total", labels) or 0.0


def _lines(stream: io.StringIO) -> list[dict[str, object]]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


FIELDS = {"platform": "slack", "team_id": "T1", "channel_id": "C1", "user_id": "U1",
          "cluster_id": "c-1"}  # fmt: skip


def test_the_canonical_line_is_one_json_object_with_the_request_id(log_stream: io.StringIO):
    report = Report(
        outcome=Outcome.DIAGNOSED,
        category=Category.UNKNOWN,
        evidence=(EvidenceLine(text="env [REDACTED:password] and [REDACTED:jwt]", source="x"),),
        missing=("Kubernetes evidence",),
    )
    before = (
        _diagnoses("diagnosed", "UNKNOWN"),
        REGISTRY.get_sample_value("runai_why_redactions_total"),
    )

    def run() -> None:
        trace = begin_request()
        trace.upstream_calls = 7
        observe_stage("resolve", 0.0123)
        record_diagnosis(report, failed=None, seconds=0.5, fields=FIELDS)

    contextvars.copy_context().run(run)
    [line] = [x for x in _lines(log_stream) if x["event"] == CANONICAL_EVENT]
    request_id = line[REQUEST_ID]
    assert isinstance(request_id, str)
    assert len(request_id) == 32  # not masked: an ID is no secret
    assert {k: line[k] for k in FIELDS} == FIELDS
    assert line["outcome"] == "diagnosed"
    assert line["category"] == "UNKNOWN"
    assert line["stages_ms"] == {"resolve": 12.3}
    assert (line["upstream_calls"], line["gaps"], line["redactions"]) == (7, 1, 2)
    assert line["diagnosis_ms"] == 500.0
    assert line["level"] == "info"
    assert _diagnoses("diagnosed", "UNKNOWN") - before[0] == 1
    assert (REGISTRY.get_sample_value("runai_why_redactions_total") or 0) - (before[1] or 0) == 2


def test_a_diagnosis_without_a_report_is_an_upstream_error(log_stream: io.StringIO):
    before = _diagnoses("upstream_error", "none")

    def run() -> None:  # no trace: e.g. a worker that did not begin one
        record_diagnosis(None, failed="get_workload_status", seconds=1.0, fields=FIELDS)

    contextvars.Context().run(run)
    [line] = [x for x in _lines(log_stream) if x["event"] == CANONICAL_EVENT]
    assert (line["outcome"], line["category"], line["failed_call"]) == (
        "upstream_error",
        None,
        "get_workload_status",
    )
    assert REQUEST_ID not in line
    assert line["upstream_calls"] is None
    assert _diagnoses("upstream_error", "none") - before == 1


async def test_a_call_outside_any_request_is_counted_in_the_metric_only():
    async def run() -> None:
        assert current_trace() is None
        before = _calls("test-upstream", "/api/v1/clusters", "200")
        transport = CountingTransport(
            httpx.MockTransport(lambda _: httpx.Response(200)), "test-upstream"
        )
        async with httpx.AsyncClient(transport=transport, base_url="http://up") as client:
            await client.get("/api/v1/clusters")
        assert _calls("test-upstream", "/api/v1/clusters", "200") - before == 1

    await asyncio.create_task(run(), context=contextvars.Context())
