"""What an alert's labels say about the Run:ai workload it concerns, or why they say nothing.

Read from labels only, never guessed: the cluster (`cluster`, else `ALERT_CLUSTER`), the
project (namespace `runai-<project>`), and the workload: its UUID or name when the site
exports Run:ai's pod labels (kube-state-metrics turns `run.ai/top-owner-uid` into
`label_run_ai_top_owner_uid`, `workloadName` into `label_workload_name`), else the pod,
which the worker matches against the workloads' own pods. The batch-Job alerts carry
kube-state-metrics' own pod as `pod`, so their `pod` is never read. A project or workload name
is a Run:ai name, as an asked one must be (it goes into the API's filters), or the alert says
nothing (`invalid_name`).
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.alerts.payload import Alert
from bot.push import AlertSpec
from diagnosis import valid_name

__all__ = ["NAMESPACE_PREFIX", "Unmapped", "read_alert"]

NAMESPACE_PREFIX = "runai-"
#: Alerts about `batch/v1` Jobs: their `pod` label is the exporter's pod, not the workload's.
_JOB_ALERTS = frozenset({"KubeJobFailed", "KubeJobNotCompleted"})
_WORKLOAD_ID = ("label_run_ai_top_owner_uid", "label_run_ai_workload_id", "workload_id")
_WORKLOAD_NAME = ("label_workload_name", "workloadName", "workload_name")
#: A scrape that does not honour the metric's own labels renames them `exported_*` and sets
#: `pod` and `namespace` to the exporter's (DCGM's GPU alerts): the exported ones come first.
_POD = ("exported_pod", "pod")
_NAMESPACE = ("exported_namespace", "namespace")
#: A container's waiting reason, as the symptom the diagnosis confirms.
_SYMPTOMS = {
    "CrashLoopBackOff": "crashloop",
    "ImagePullBackOff": "image-pull",
    "ErrImagePull": "image-pull",
}


@dataclass(frozen=True)
class Unmapped:
    """Why an alert names no Run:ai workload (the `reason` label of the counter)."""

    reason: str


def read_alert(alert: Alert, *, default_cluster: str | None) -> AlertSpec | Unmapped:
    """The alert as the worker resolves it, or why its labels cannot name a workload."""
    alertname = alert.label("alertname") or ""
    cluster = alert.label("cluster") or default_cluster
    if not cluster:
        return Unmapped("no_cluster")
    namespace = alert.label(*_NAMESPACE)
    if namespace is None:
        return Unmapped("no_namespace")
    if not namespace.startswith(NAMESPACE_PREFIX) or namespace == NAMESPACE_PREFIX:
        return Unmapped("not_a_project_namespace")
    project = namespace.removeprefix(NAMESPACE_PREFIX)
    pod = None if alertname in _JOB_ALERTS else alert.label(*_POD)
    workload_id = alert.label(*_WORKLOAD_ID)
    workload_name = alert.label(*_WORKLOAD_NAME)
    if not (pod or workload_id or workload_name):
        return Unmapped("no_workload_labels")
    if not valid_name(project) or not (workload_name is None or valid_name(workload_name)):
        return Unmapped("invalid_name")
    reason = alert.label("reason")
    return AlertSpec(
        fingerprint=alert.fingerprint,
        starts_at=alert.startsAt,
        status=alert.status,
        alertname=alertname,
        cluster=cluster,
        project=project,
        pod=pod,
        workload_name=workload_name,
        workload_id=workload_id,
        symptom=_SYMPTOMS.get(reason or ""),
        ends_at=alert.endsAt if alert.status == "resolved" else None,
    )
