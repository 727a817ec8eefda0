"""The audit event of one diagnosis, built from what the engine holds when it is done."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.conversation.auditing import audit_event
from bot.conversation.model import Incoming, Slots, ThreadKey
from diagnosis import Category, Outcome, Report, WorkloadRef

AT = datetime(2025, 11, 4, 9, 30, 1, tzinfo=UTC)


def test_audit_event_from_what_the_engine_holds():
    incoming = Incoming(key=ThreadKey("slack", "T1", "C1", "171.1"), user="U1", text="why")
    slots = Slots(cluster_id="prod", workload_name="train-bert", project="nlp")
    report = Report(
        outcome=Outcome.DIAGNOSED,
        category=Category.OOM_KILLED,
        workload=WorkloadRef(
            id="w-1", name="train-bert", project="nlp", cluster_id="prod", phase="Failed"
        ),
        missing=("GPU memory (metrics unavailable)",),
        redactions=3,
    )
    e = audit_event(incoming, slots, report, None, 1.2346, at=AT)
    assert (e.platform, e.team, e.channel, e.user) == ("slack", "T1", "C1", "U1")
    assert (e.cluster_id, e.workload, e.project, e.resolved_id) == (
        "prod",
        "train-bert",
        "nlp",
        "w-1",
    )
    assert (e.outcome, e.category, e.redactions, e.duration_ms) == (
        "diagnosed",
        "OOM_KILLED",
        3,
        1235,
    )
    assert (e.failed_calls, e.gaps) == ([], ["GPU memory (metrics unavailable)"])

    failed = audit_event(incoming, slots, None, "get_workload", 0.5)
    assert (failed.outcome, failed.category, failed.resolved_id) == ("upstream_error", None, None)
    assert failed.failed_calls == ["get_workload"]
    assert failed.at.tzinfo == UTC
