"""`ALERT_CHANNELS`: where an alert about a project is answered, asked at ingress and by the worker.

A key is `<cluster name or ID>/<project>`. The worker knows the cluster (from the cluster
list) and looks up both its ID and its name (`of`). The webhook checks before it queues
anything (`refusal`): an alert whose label names the cluster as a key does is taken; one about
a project no key names, on any cluster, is refused at once (`no_channel`), without a call to
Run:ai. Only a project keyed under another name of a cluster (the key by ID, the label by name)
needs to know which cluster the label means: the cached cluster list says (`no_channel`), and
when it cannot be read, or does not know the cluster (a cache older than a new cluster), the
alert is taken and the worker, which reads the list afresh, decides.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence

import structlog

from bot.conversation.clusters import cluster_by_ref
from diagnosis import Cluster, UpstreamError

__all__ = ["AlertChannels"]

Clusters = Callable[[], Awaitable[Sequence[Cluster]]]


class AlertChannels:
    """The channels of `ALERT_CHANNELS`, and the projects they are given, by any cluster name."""

    def __init__(self, channels: Mapping[str, str], clusters: Clusters | None = None) -> None:
        """`clusters`: the cluster list (cached), to tell which cluster a label names."""
        self._channels = dict(channels)
        self._projects = {key.rpartition("/")[2] for key in self._channels}
        self._clusters = clusters

    def of(self, cluster: Cluster, project: str) -> str | None:
        """The channel of `project` on `cluster`, keyed by the cluster's ID or its name."""
        return self._channels.get(f"{cluster.uuid}/{project}") or self._channels.get(
            f"{cluster.name}/{project}"
        )

    async def refusal(self, cluster_ref: str, project: str) -> str | None:
        """Why an alert about `project` on the cluster `cluster_ref` is not taken; None: taken.

        The reasons are those the worker counts (`runai_why_alerts_unmapped_total`).
        """
        if f"{cluster_ref}/{project}" in self._channels:
            return None
        if project not in self._projects:
            return "no_channel"
        if self._clusters is None:
            return None  # the worker looks the cluster up
        try:
            known = await self._clusters()
        except UpstreamError as error:
            structlog.get_logger(__name__).info("alert_channel_unchecked", error=str(error))
            return None
        cluster = cluster_by_ref(known, cluster_ref)
        if cluster is None:  # perhaps newer than the cache: the worker reads the list afresh
            return None
        return None if self.of(cluster, project) else "no_channel"
