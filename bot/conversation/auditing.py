"""The audit record of one diagnosis, from what the engine holds when it is done."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.conversation.model import Incoming, Slots
from bot.ops.audit_events import UPSTREAM_ERROR_OUTCOME, AuditEvent
from diagnosis import Report

__all__ = ["audit_event"]


def audit_event(
    incoming: Incoming,
    slots: Slots,
    report: Report | None,
    failed: str | None,
    seconds: float,
    *,
    at: datetime | None = None,
) -> AuditEvent:
    """The audit event of one diagnosis, from what `ConversationEngine._diagnose` holds.

    `report` is None when a call the diagnosis cannot do without failed; `failed` is then
    that call's operation name.
    """
    return AuditEvent(
        platform=incoming.key.platform,
        team=incoming.key.team,
        channel=incoming.key.channel,
        user=incoming.user,
        cluster_id=slots.cluster_id,
        workload=slots.workload_id or slots.workload_name,
        project=slots.project,
        resolved_id=report.workload.id if report and report.workload else None,
        outcome=report.outcome.value if report else UPSTREAM_ERROR_OUTCOME,
        category=report.category.value if report and report.category else None,
        redactions=report.redactions if report else 0,
        duration_ms=max(0, round(seconds * 1000)),
        failed_calls=[failed] if failed else [],
        gaps=list(report.missing) if report else [],
        at=at or datetime.now(UTC),
    )
