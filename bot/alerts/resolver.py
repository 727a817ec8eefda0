"""From an alert's labels to a Run:ai workload and a channel, by reading the control plane.

The cluster is the one whose name or ID the `cluster` label (or `ALERT_CLUSTER`) gives; the
channel is `ALERT_CHANNELS["<cluster name or ID>/<project>"]`. The workload is the one its UUID
label names, else the newest of its name label (a Run:ai name, as an asked one), else the
workload one of whose pods is the alert's pod: a pod name is only compared with the pods the
API lists for a workload, never cut down to a workload name. Whichever way it was found, the
workload is used only if it is on that cluster, in that project (and has that name). An alert
that maps to none of them is counted (`runai_why_alerts_unmapped_total`) and logged, and
nothing is posted.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Protocol

import structlog

from bot.alerts.channels import AlertChannels
from bot.conversation.clusters import cluster_by_ref
from bot.ops.metrics import ALERTS_UNMAPPED
from bot.push import PENDING, AlertSpec, Kv, Pending, PushSpec, Target
from diagnosis import Cluster, NotFound, RunaiReader, valid_name

__all__ = ["AlertRouting", "channel_target"]

#: How long the thread of an alert's answer is remembered, for its resolution.
THREAD_TTL_S = 7 * 86_400
#: Workloads whose pods are read to find an alert's pod: the longest names that prefix it.
MAX_POD_CANDIDATES = 5


class _Workload(Protocol):
    """What is read of a workload the API listed (`diagnosis` keeps its model private)."""

    @property
    def id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def cluster_id(self) -> str: ...
    @property
    def project_name(self) -> str | None: ...


def channel_target(channel: str, slack_team: str) -> Target:
    """The channel an `ALERT_CHANNELS` value names: a Teams conversation ID, or Slack's."""
    if channel == "console":
        return Target(platform="console", team="local", channel="console")
    if channel.startswith(("19:", "a:")):
        return Target(platform="teams", channel=channel)
    return Target(platform="slack", team=slack_team, channel=channel)


class AlertRouting:
    """The worker's `AlertResolver`: alert → workload and channel, and its answer's thread."""

    def __init__(
        self,
        runai: RunaiReader,
        kv: Kv,
        *,
        channels: Mapping[str, str],
        slack_team: Callable[[], Awaitable[str]] | None = None,
        teams_target: Callable[[str], Awaitable[Target | None]] | None = None,
    ) -> None:
        """`teams_target` finds a Teams conversation's tenant and address (from its watches)."""
        self._runai = runai
        self._kv = kv
        self._channels = AlertChannels(channels)
        self._slack_team = slack_team
        self._teams_target = teams_target
        self._log = structlog.get_logger(__name__)

    def _unmapped(self, alert: AlertSpec, reason: str) -> None:
        ALERTS_UNMAPPED.labels(reason=reason).inc()
        self._log.warning(
            "alert_unmapped",
            reason=reason,
            alertname=alert.alertname,
            fingerprint=alert.fingerprint,
            cluster=alert.cluster,
            project=alert.project,
        )

    async def resolve(self, alert: AlertSpec) -> PushSpec | None:
        """See `AlertResolver.resolve`."""
        project = alert.project or ""
        cluster = await self._cluster(alert.cluster or "")
        if cluster is None:
            self._unmapped(alert, "unknown_cluster")
            return None
        channel = self._channels.of(cluster, project)
        if channel is None:
            self._unmapped(alert, "no_channel")
            return None
        workload = await self._workload(alert, cluster.uuid, project)
        if workload is None:
            self._unmapped(alert, "no_workload")
            return None
        team = await self._slack_team() if self._slack_team is not None else ""
        target = channel_target(channel, team)
        if target.platform == "teams":
            found = await self._teams_target(channel) if self._teams_target is not None else None
            if found is None:
                self._unmapped(alert, "teams_without_watch")
                return None
            target = found  # its tenant too: the answer's buttons find the thread by it
        return PushSpec(
            source="alert",
            target=target,
            cluster_id=cluster.uuid,
            cluster_name=cluster.name,
            project=project,
            workload_ids=(workload.id,),
            symptom=alert.symptom,
            alert_key=alert.key,
        )

    async def _cluster(self, ref: str) -> Cluster | None:
        clusters = await self._runai.list_clusters()
        return cluster_by_ref(clusters, ref)

    async def _workload(self, alert: AlertSpec, cluster_id: str, project: str) -> _Workload | None:
        """The alert's workload, if it is on `cluster_id` in `project` (and has the name asked)."""
        if not valid_name(project):  # queued before names were checked at the webhook
            return None
        found: _Workload | None = None
        if alert.workload_id:
            try:
                found = await self._runai.get_workload(alert.workload_id)
            except NotFound:
                return None
        elif alert.workload_name:
            if not valid_name(alert.workload_name):
                return None
            named = await self._runai.list_workloads(
                cluster_id=cluster_id, project=project, name=alert.workload_name
            )
            found = next((w for w in named if w.name == alert.workload_name), None)
        elif alert.pod:
            found = await self._pod_owner(alert.pod, cluster_id, project)
        if found is None or found.cluster_id != cluster_id or found.project_name != project:
            return None
        return found

    async def _pod_owner(self, pod: str, cluster_id: str, project: str) -> _Workload | None:
        """The workload that lists `pod` among its pods (names only narrow whom to ask)."""
        listed = await self._runai.list_project_workloads(cluster_id=cluster_id, project=project)
        candidates = sorted(
            (w for w in listed if pod.startswith(f"{w.name}-")),
            key=lambda w: len(w.name),
            reverse=True,
        )
        for workload in candidates[:MAX_POD_CANDIDATES]:
            pods = await self._runai.list_pods(workload.id)
            if any(p.name == pod for p in pods):
                return workload
        return None

    async def started(self, alert_key: str) -> None:
        """See `AlertResolver.started`."""
        await self._kv.claim(f"alert:{alert_key}", PENDING, THREAD_TTL_S)

    async def dropped(self, alert_key: str) -> None:
        """See `AlertResolver.dropped`."""
        if await self._kv.get(f"alert:{alert_key}") == PENDING:
            await self._kv.delete(f"alert:{alert_key}")

    async def thread_of(self, alert: AlertSpec) -> tuple[Target, str] | Pending | None:
        """See `AlertResolver.thread_of`."""
        raw = await self._kv.get(f"alert:{alert.key}")
        if raw is None:
            return None
        if raw == PENDING:
            return PENDING
        kept = json.loads(raw)
        return Target.model_validate(kept["target"]), str(kept["thread"])

    async def posted(self, alert_key: str, target: Target, thread: str) -> None:
        """See `AlertResolver.posted`."""
        kept = json.dumps({"target": target.model_dump(mode="json"), "thread": thread})
        await self._kv.set(f"alert:{alert_key}", kept, ttl_s=THREAD_TTL_S)
