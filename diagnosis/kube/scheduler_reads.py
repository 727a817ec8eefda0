"""Tier 2 reads both scheduling answers share: which PodGroup is the workload's, and its events.

The PodGroup's name comes from what the scheduler already said about it (a Run:ai event whose
object is the PodGroup), else from a pod's `pod-group-name` annotation: never guessed from the
workload's name. Every failed read is a gap.
"""

from __future__ import annotations

from collections.abc import Iterable

from diagnosis.evidence import Gap
from diagnosis.fetch import gather_gap
from diagnosis.kube.event_models import KubeEvent
from diagnosis.kube.models import Pod as KubePod
from diagnosis.kube.reader import KubeReader
from diagnosis.kube.signals import source
from diagnosis.runai.models import Event

__all__ = ["POD_GROUP_ANNOTATION", "podgroup_events", "podgroup_name"]

#: The pod annotation naming its PodGroup (KAI's pod-grouper writes it).
POD_GROUP_ANNOTATION = "pod-group-name"


def podgroup_name(events: Iterable[Event], pods: Iterable[KubePod] = ()) -> str | None:
    """The workload's PodGroup: named by a scheduler event about it, else by a pod annotation."""
    for event in events:
        target = event.involved_object
        if target is not None and (target.kind or "").lower() == "podgroup" and target.name:
            return target.name
    for pod in pods:
        name = pod.metadata.annotations.get(POD_GROUP_ANNOTATION)
        if name:
            return name
    return None


async def podgroup_events(
    kube: KubeReader, namespace: str, name: str
) -> tuple[list[KubeEvent] | None, Gap | None, str]:
    """The PodGroup's own events (`Evict`, `NotReady`, ...), the gap if unread, the citation."""
    cite = source("kubectl get events", namespace)
    read = await gather_gap(
        cite,
        f"events of PodGroup {name} ({cite})",
        kube.list_object_events(namespace, "PodGroup", name),
    )
    return read.value, read.gap, cite
