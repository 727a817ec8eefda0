"""A pushed failure diagnosed within what its channel was given, recorded and audited.

The service account reads it, but the report shows only what the channel may see: the
watch's or alert's cluster, project and kinds, never a department's figures (they sum other
projects'), and, for a watch made in chat, nothing its subscriber's own access does not read
now (`bot.push.subscriber`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime

import structlog

from bot.authz import Authorizer
from bot.conversation import Incoming, Slots
from bot.conversation.auditing import audit_event
from bot.durable.flight import Flights
from bot.ops.audit import AuditSink
from bot.ops.observe import observe_stage, record_diagnosis
from bot.push.item import BOT_USER, PushSpec
from bot.push.subscriber import SubscriberCheck
from diagnosis import (
    AccessDenied,
    DepartmentAccess,
    DiagnosisRequest,
    KubeConnector,
    Outcome,
    Report,
    RunaiReader,
    Symptom,
    WorkloadAccess,
    diagnose,
    parse_lookback,
)

__all__ = ["LOOKBACK", "PushDiagnosis", "slots_of"]

#: How far back a pushed answer looks, as an asked one does by default.
LOOKBACK = "24h"


def slots_of(spec: PushSpec, workload_id: str) -> Slots:
    """The slots an asked answer about this workload would have had."""
    return Slots(
        cluster_id=spec.cluster_id,
        cluster_label=spec.cluster_name,
        workload_id=workload_id,
        project=spec.project,
        lookback=LOOKBACK,
    )


class PushDiagnosis:
    """Diagnoses one workload of a push item (`__call__`)."""

    def __init__(
        self,
        *,
        runai: RunaiReader,
        kube: KubeConnector | None,
        authorizer: Authorizer,
        flights: Flights | None,
        audit: AuditSink,
        deadline_s: float,
        clock: Callable[[], datetime | None],
    ) -> None:
        self._runai, self._kube, self._authorizer = runai, kube, authorizer
        self._flights, self._audit = flights, audit
        self._deadline_s, self._clock = deadline_s, clock
        self._log = structlog.get_logger(__name__)

    async def __call__(self, spec: PushSpec, workload_id: str) -> Report | None:
        """The report, or None when the workload is outside what the channel was given.

        Raises `SubscriberUnchecked` when its subscriber's access could not be read.
        """
        subscriber = SubscriberCheck(self._authorizer, spec)

        async def authorize(workload: WorkloadAccess | DepartmentAccess) -> bool:
            if isinstance(workload, DepartmentAccess):
                return False  # the channel was given a project: never its department's figures
            return (
                workload.cluster_id == spec.cluster_id
                and (workload.project or "") == spec.project
                and (spec.kinds is None or (workload.kind or "") in spec.kinds)
                and await subscriber.reads(workload)
            )

        request = DiagnosisRequest(
            cluster_id=spec.cluster_id,
            workload_id=workload_id,
            lookback=parse_lookback(LOOKBACK),
            symptom=Symptom(spec.symptom) if spec.symptom else None,
        )
        started = time.perf_counter()
        try:
            report = await diagnose(
                request,
                runai=self._runai,
                kube=self._kube,
                now=self._clock(),
                authorize=authorize,
                deadline_s=self._deadline_s,
                share=self._flights,
                observe=observe_stage,
            )
        except AccessDenied:
            subscriber.refused(workload_id)
            return None
        if spec.preemption_only and report.outcome is not Outcome.PREEMPTED:
            self._log.info("push_not_preempted", workload_id=workload_id, outcome=report.outcome)
            return None
        seconds = time.perf_counter() - started
        target = spec.target
        fields = {
            "platform": target.platform,
            "team_id": target.team,
            "channel_id": target.channel,
            "user_id": BOT_USER,
            "cluster_id": spec.cluster_id,
            "push": spec.source,
        }
        record_diagnosis(report, failed=None, seconds=seconds, fields=fields)
        slots = slots_of(spec, workload_id)
        incoming = Incoming(target.key(""), BOT_USER, directed=False)  # not the alert's placeholder
        await self._audit.record(audit_event(incoming, slots, report, None, seconds))
        return report
