"""What `watch`, `unwatch` and `watches` do: check who asks, keep the subscription, say so.

Subscribing a channel shows everyone in it the project's failures, so only someone whose
own Run:ai access reads every kind of workload in that project may do it, and never for a
project the channel's policy (`CHANNEL_PROJECTS`) keeps private there. As in a question,
nothing names a cluster before the asker's access anywhere is known, and a cluster they may
not read is answered as one that does not exist. The confirmation is public: it names who
subscribed, and says that everyone in the channel will see the answers. Refusals are
private. A `watch` replaces one that stopped, or that posts only some kinds, since its
subscriber's access changed (`bot.watch.guard`).

Unsubscribing shows nobody anything, so anyone in the channel may do it, whatever their
access (the subscriber who lost theirs too), but guests and people of another organisation
unless `AUTHZ_ALLOW_GUESTS` / `AUTHZ_ALLOW_EXTERNAL` let them in: the project and cluster
are matched against the channel's own watches, as `watches` lists them for anyone there,
and no cluster is looked up. The confirmation is public and names who unsubscribed.
"""

from __future__ import annotations

from collections.abc import Collection

import structlog

from bot.authz import Reason
from bot.conversation import Access, Gate, Notice, Responder
from bot.conversation.clusters import cluster_by_ref
from bot.conversation.messages import describe_upstream
from bot.push import Target
from bot.watch.command import WatchCommand
from bot.watch.subscriptions import STOPPED, Subscription, Subscriptions, told_kinds
from diagnosis import Cluster, RunaiReader, UpstreamError, WorkloadRef

__all__ = ["WatchCommands"]


def _where(project: str, cluster: str) -> str:
    return f"project {project} on {cluster}"


def _state(subscription: Subscription) -> str:
    """What the watch no longer covers, as `watches` says it ("" when nothing)."""
    if subscription.stopped_at is not None or subscription.told == STOPPED:
        at = (subscription.stopped_at or subscription.since).strftime("%Y-%m-%d %H:%M UTC")
        return f": stopped {at}"  # never why: that would be its subscriber's access
    if (kinds := told_kinds(subscription.told)) is not None:
        return f": only {kinds}"
    return ""


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
        if command.action == "unwatch":
            await self._unwatch(command, target, gate, out)
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
        await self._watch(command, target, cluster, who, out)

    @staticmethod
    def _probe(command: WatchCommand, cluster: Cluster) -> WorkloadRef:
        """The project as a whole, every kind: what a subscription shows the channel."""
        return WorkloadRef(
            id="", name="", project=command.project, cluster_id=cluster.uuid, phase=None, kind=None
        )

    async def _cluster(self, ref: str) -> Cluster | None:
        clusters = await self._runai.list_clusters()
        return cluster_by_ref(clusters, ref)

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
        added = await self._subscriptions.add(subscription)
        if added == "exists":
            await out.post(Notice(f"This channel already watches {where}.", private=True))
            return
        what = "failures and preemptions" if command.preemptions else "failures"
        self._log.info("watch_added", channel=target.channel, project=command.project, how=added)
        await out.post(
            Notice(
                f"{who} subscribed this channel to {what} of {where}. Everyone in this "
                "channel will see those answers, whatever their own Run:ai access. "
                f"`unwatch {command.project} on {cluster.name}` stops it."
            )
        )

    async def _unwatch(
        self, command: WatchCommand, target: Target, gate: Gate, out: Responder
    ) -> None:
        identity = gate.identity
        if identity.lookup_failed is not None:  # who they are (a guest?) is not known
            text = "I could not tell who you are just now, so nothing changed; try again later."
            await out.post(Notice(text, private=True))
            return
        if identity.is_guest or identity.is_external:
            reach = await gate.reach()  # refuses them unless AUTHZ_ALLOW_* lets them in
            if reach.reason in {Reason.GUEST, Reason.EXTERNAL}:
                await out.post(await gate.deny(reach))
                return
        who = identity.email or identity.user_id
        for s in await self._subscriptions.of_channel(target):
            if s.project == command.project and command.cluster in {s.cluster_name, s.cluster_id}:
                await self._subscriptions.remove(target, s.cluster_id, s.project)
                self._log.info("watch_removed", channel=target.channel, project=s.project, by=who)
                where = _where(s.project, s.cluster_name)
                await out.post(Notice(f"{who} unsubscribed this channel from {where}."))
                return
        where = _where(command.project, command.cluster)
        declared = any(
            d.project == command.project and d.cluster == command.cluster
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
                + _state(s)
            )
        for d in self._subscriptions.declared_in(target):
            extra = ", with preemptions" if d.preemptions else ""
            lines.append(f"- {_where(d.project, d.cluster)} (the WATCHES setting{extra})")
        if not lines:
            return "This channel watches no project. `watch <project> on <cluster>` subscribes it."
        return "This channel watches:\n" + "\n".join(lines)
