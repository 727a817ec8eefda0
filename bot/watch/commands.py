"""What `watch`, `unwatch` and `watches` do: check who asks, keep the subscription, say so.

Subscribing a channel shows everyone in it the project's failures, so only someone whose
own Run:ai access reads every kind of workload in that project may do it (or undo it), and
never for a project the channel's policy (`CHANNEL_PROJECTS`) keeps private there. As in a
question, nothing names a cluster before the asker's access anywhere is known, and a cluster
they may not read is answered as one that does not exist. The confirmation is public: it
names who subscribed, and says that everyone in the channel will see the answers. Refusals
are private.
"""

from __future__ import annotations

from collections.abc import Collection

import structlog

from bot.conversation import Access, Gate, Notice, Responder
from bot.conversation.messages import describe_upstream
from bot.push import Target
from bot.watch.command import WatchCommand
from bot.watch.subscriptions import Subscription, Subscriptions
from diagnosis import Cluster, RunaiReader, UpstreamError, WorkloadRef

__all__ = ["WatchCommands"]


def _where(project: str, cluster: str) -> str:
    return f"project {project} on {cluster}"


class WatchCommands:
    """Runs one subscription command for the person behind it."""

    def __init__(
        self, runai: RunaiReader, subscriptions: Subscriptions, *, postable: Collection[str]
    ) -> None:
        self._runai = runai
        self._subscriptions = subscriptions
        self._postable = postable
        self._log = structlog.get_logger(__name__)

    async def run(
        self, command: WatchCommand, target: Target, gate: Gate, access: Access, out: Responder
    ) -> None:
        """Answer `command`, sent in `target`'s channel by the person `gate` checks."""
        if command.action == "list":
            await out.post(Notice(await self._listing(target)))
            return
        if target.platform not in self._postable:
            text = f"I cannot post unasked answers on {target.platform} yet, so nothing changed."
            await out.post(Notice(text, private=True))
            return
        reach = await gate.reach()
        if not reach.allowed:  # a guest, another organisation, no access anywhere: no names
            await out.post(await gate.deny(reach))
            return
        try:
            cluster = await self._cluster(command.cluster)
        except UpstreamError as error:
            await out.post(Notice(describe_upstream(error, "find the cluster"), private=True))
            return
        if cluster is None or not reach.covers(cluster.uuid):
            if cluster is not None:  # audited as the refusal it is, told as if it were absent
                await gate.deny(await gate.may_see(self._probe(command, cluster), cluster.name))
            text = (
                f"I know no cluster named `{command.cluster}` that you may read; nothing changed."
            )
            await out.post(Notice(text, private=True))
            return
        decision = await gate.may_see(self._probe(command, cluster), cluster.name)
        if not decision.allowed:
            await out.post(await gate.deny(decision))
            return
        if not access.public_in(target.channel, command.project):
            where = _where(command.project, cluster.name)
            text = f"This channel does not discuss {where} publicly, so it cannot watch it."
            await out.post(Notice(text, private=True))
            return
        who = gate.identity.email or gate.identity.user_id
        if command.action == "watch":
            await self._watch(command, target, cluster, who, out)
        else:
            await self._unwatch(command, target, cluster, who, out)

    @staticmethod
    def _probe(command: WatchCommand, cluster: Cluster) -> WorkloadRef:
        """The project as a whole, every kind: what a subscription shows the channel."""
        return WorkloadRef(
            id="", name="", project=command.project, cluster_id=cluster.uuid, phase=None, kind=None
        )

    async def _cluster(self, ref: str) -> Cluster | None:
        clusters = await self._runai.list_clusters()
        return next((c for c in clusters if ref in {c.uuid, c.name}), None)

    async def _watch(
        self, command: WatchCommand, target: Target, cluster: Cluster, who: str, out: Responder
    ) -> None:
        where = _where(command.project, cluster.name)
        subscription = Subscription(
            target=target,
            cluster_id=cluster.uuid,
            cluster_name=cluster.name,
            project=command.project,
            preemptions=command.preemptions,
            subscribed_by=who,
        )
        if await self._subscriptions.add(subscription) == "exists":
            await out.post(Notice(f"This channel already watches {where}.", private=True))
            return
        what = "failures and preemptions" if command.preemptions else "failures"
        self._log.info("watch_added", channel=target.channel, project=command.project)
        await out.post(
            Notice(
                f"{who} subscribed this channel to {what} of {where}. Everyone in this "
                "channel will see those answers, whatever their own Run:ai access. "
                f"`unwatch {command.project} on {cluster.name}` stops it."
            )
        )

    async def _unwatch(
        self, command: WatchCommand, target: Target, cluster: Cluster, who: str, out: Responder
    ) -> None:
        where = _where(command.project, cluster.name)
        if await self._subscriptions.remove(target, cluster.uuid, command.project):
            self._log.info("watch_removed", channel=target.channel, project=command.project)
            await out.post(Notice(f"{who} unsubscribed this channel from {where}."))
            return
        declared = any(
            d.project == command.project and d.cluster in {cluster.name, cluster.uuid}
            for d in self._subscriptions.declared_in(target)
        )
        text = (
            f"This channel watches {where} because the `WATCHES` setting says so; remove it there."
            if declared
            else f"This channel does not watch {where}."
        )
        await out.post(Notice(text, private=True))

    async def _listing(self, target: Target) -> str:
        lines = []
        for s in await self._subscriptions.of_channel(target):
            extra = ", with preemptions" if s.preemptions else ""
            since = s.since.strftime("%Y-%m-%d %H:%M UTC")
            lines.append(
                f"- {_where(s.project, s.cluster_name)} (by {s.subscribed_by}, {since}{extra})"
            )
        for d in self._subscriptions.declared_in(target):
            extra = ", with preemptions" if d.preemptions else ""
            lines.append(f"- {_where(d.project, d.cluster)} (the WATCHES setting{extra})")
        if not lines:
            return "This channel watches no project. `watch <project> on <cluster>` subscribes it."
        return "This channel watches:\n" + "\n".join(lines)
