"""`diagnose(..., share=...)`: what is shared, under which keys, and that it round-trips."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

import pytest

from bot.app.backends import simulated
from bot.app.demo.scenarios import bundled_scenario
from diagnosis import (
    AccessDenied,
    AuthError,
    DiagnosisRequest,
    NotFound,
    Outcome,
    Payload,
    Report,
    Symptom,
    UpstreamError,
    UpstreamTimeout,
    UpstreamUnavailable,
    diagnose,
)
from diagnosis.sharing import SharedLookups, report_key, shared_report
from tests.diagnosis.doubles import Memo, Refusing

DEMO = bundled_scenario("demo")
CLUSTER = DEMO.clusters[0]["uuid"]
BY_NAME = {w.workload["name"]: w.workload for w in DEMO.workloads}
JOB_42 = BY_NAME["training-job-42"]


@pytest.mark.parametrize(
    "request_",
    [
        DiagnosisRequest(cluster_id=CLUSTER, workload_id=JOB_42["id"]),
        DiagnosisRequest(cluster_id=CLUSTER, workload_name="training-job-42", project="ml-team"),
        DiagnosisRequest(
            cluster_id=CLUSTER, workload_name="t5-distill", project="nlp", symptom=Symptom.CRASHLOOP
        ),
    ],
    ids=["by id", "by name", "by name with a symptom"],
)
async def test_a_shared_report_is_the_report_and_a_second_asker_reads_nothing_more(request_):
    memo = Memo()
    async with simulated(DEMO, retries=0, transport="asgi") as up:
        assert up.simulator is not None
        alone = await diagnose(request_, runai=up.runai, now=DEMO.now)
        up.simulator.clear_requests()
        first = await diagnose(request_, runai=up.runai, now=DEMO.now, share=memo)
        read = len(up.simulator.requests)
        second = await diagnose(request_, runai=up.runai, now=DEMO.now, share=memo)
        events = [r for r in up.simulator.requests[read:] if r.path.endswith("/events")]
        assert len(up.simulator.requests) - read == len(events)
    assert first == alone
    assert second == alone, "the report came back whole from its JSON"
    assert [kind for kind, _ in memo.asked].count("report") == 2
    if request_.symptom is None:
        assert not events, "with no symptom to confirm, nothing at all is read again"


async def test_the_key_is_the_workloads_state_and_what_was_asked():
    memo = Memo()
    async with simulated(DEMO, retries=0, transport="asgi") as up:
        request = DiagnosisRequest(cluster_id=CLUSTER, workload_id=JOB_42["id"])
        await diagnose(request, runai=up.runai, now=DEMO.now, share=memo)
        workload = await up.runai.get_workload(JOB_42["id"])
    [report] = [key for kind, key in memo.asked if kind == "report"]
    assert report == report_key(request, workload, tier2=False)
    assert JOB_42["id"] in report
    assert workload.phase_updated_at is not None
    assert workload.phase_updated_at.isoformat() in report
    longer = request.model_copy(update={"lookback": timedelta(days=7)})
    assert report_key(longer, workload, tier2=False) != report
    assert report_key(request, workload, tier2=True) != report
    moved = workload.model_copy(update={"phase_updated_at": datetime.now(UTC)})
    assert report_key(request, moved, tier2=False) != report


async def test_asks_an_hour_apart_share_the_diagnosis_of_their_rounded_lookback():
    """One person asking with lookback=1h, 2h, ... 30h cannot make 30 diagnoses of one state."""
    memo = Memo()
    async with simulated(DEMO, retries=0, transport="asgi") as up:
        assert up.simulator is not None
        asks = [
            DiagnosisRequest(
                cluster_id=CLUSTER, workload_id=JOB_42["id"], lookback=timedelta(hours=hours)
            )
            for hours in range(1, 31)
        ]
        reports = [await diagnose(ask, runai=up.runai, now=DEMO.now, share=memo) for ask in asks]
        histories = [r for r in up.simulator.requests if r.path.endswith("/history")]
    assert len({key for kind, key in memo.kept if kind == "report"}) == 7
    assert len(histories) == 7  # one diagnosis per step: 1h, 2h, 3h, 6h, 12h, 24h, 2d
    said = {r.recurrence.lookback for r in reports if r.recurrence is not None}
    assert said == {"1h", "2h", "3h", "6h", "12h", "24h", "2d"}  # each names what it used


async def test_an_asker_refused_the_workload_never_reaches_the_shared_report():
    memo = Memo()
    async with simulated(DEMO, retries=0, transport="asgi") as up:
        request = DiagnosisRequest(cluster_id=CLUSTER, workload_id=JOB_42["id"])
        await diagnose(request, runai=up.runai, now=DEMO.now, share=memo)
        memo.asked.clear()
        refusing = Refusing(("ml-team", JOB_42.get("type")))
        with pytest.raises(AccessDenied):
            await diagnose(request, runai=up.runai, now=DEMO.now, share=memo, authorize=refusing)
    assert [kind for kind, _ in memo.asked] == ["lookup"], "refused before the report"


async def test_a_shared_report_about_another_workload_is_never_shown():
    """Defence in depth: should a share ever hand back the wrong report, it is not used."""
    async with simulated(DEMO, retries=0, transport="asgi") as up:
        other = await diagnose(
            DiagnosisRequest(cluster_id=CLUSTER, workload_id=BY_NAME["resnet-ddp"]["id"]),
            runai=up.runai,
            now=DEMO.now,
        )

        async def wrong(kind: str, key: str, compute: Callable[[], Awaitable[Payload]], /) -> str:
            if kind == "report":
                return "V" + other.model_dump_json()
            return (await compute()).text

        request = DiagnosisRequest(cluster_id=CLUSTER, workload_id=JOB_42["id"])
        report = await diagnose(request, runai=up.runai, now=DEMO.now, share=wrong)
    assert report.workload is not None
    assert report.workload.id == JOB_42["id"]


@pytest.mark.parametrize(
    "error",
    [
        UpstreamTimeout("no answer", operation="get_workload_status", url="http://x/a"),
        UpstreamUnavailable("503", operation="get_workload_status", url="http://x/a", status=503),
        AuthError("refused", operation="token", url="http://x/t", status=401),
        NotFound("gone", operation="get_workload_status", url="http://x/a", status=404),
        UpstreamError("odd", operation="list_workloads", url="http://x/w"),
    ],
    ids=lambda e: type(e).__name__,
)
async def test_an_upstream_error_reaches_everyone_waiting_and_is_not_kept(error):
    memo = Memo()

    async def failing() -> Report:
        raise error

    for _ in range(2):
        with pytest.raises(type(error)) as raised:
            await shared_report(memo, "k", failing)
        assert str(raised.value) == str(error)
        assert raised.value.status == error.status
    assert not memo.kept


async def test_a_lookup_error_is_shared_as_itself():
    memo = Memo()
    async with simulated(DEMO, retries=0, transport="asgi") as up:
        lookups = SharedLookups(up.runai, memo)
        with pytest.raises(NotFound):
            await lookups.get_workload("6f1c2a9e-5b7d-4c1e-9a2f-8d6b0e4c7a11")


async def test_the_reads_it_does_not_share_pass_straight_through():
    async with simulated(DEMO, retries=0, transport="asgi") as up:
        direct = up.runai
        lookups = SharedLookups(direct, Memo())
        workload = await direct.get_workload(JOB_42["id"])
        since = DEMO.now - timedelta(days=1)
        assert await lookups.list_events(workload.id, since=since) == await direct.list_events(
            workload.id, since=since
        )
        assert await lookups.get_workload_spec(workload) == await direct.get_workload_spec(workload)
        assert await lookups.list_pods(workload.id) == await direct.list_pods(workload.id)
        assert await lookups.get_history(workload.id, cutoff=since) == await direct.get_history(
            workload.id, cutoff=since
        )
        metrics = ["GPU_MEMORY_USAGE_BYTES"]
        shared = await lookups.get_metrics(
            workload.id, metric_types=metrics, start=since, end=DEMO.now
        )
        assert shared == await direct.get_metrics(
            workload.id, metric_types=metrics, start=since, end=DEMO.now
        )
        assert await lookups.list_clusters() == await direct.list_clusters()
        names = ["gpu-node-1"]
        assert await lookups.list_nodes(cluster_id=CLUSTER, names=names) == (
            await direct.list_nodes(cluster_id=CLUSTER, names=names)
        )
        assert await lookups.list_project_workloads(cluster_id=CLUSTER, project="ml-team") == (
            await direct.list_project_workloads(cluster_id=CLUSTER, project="ml-team")
        )


async def test_a_request_needing_input_shares_nothing():
    memo = Memo()
    async with simulated(DEMO, retries=0, transport="asgi") as up:
        request = DiagnosisRequest(workload_id=JOB_42["id"])  # no cluster
        report = await diagnose(request, runai=up.runai, now=DEMO.now, share=memo)
    assert report.outcome is Outcome.NEEDS_INPUT
    assert memo.asked == []
