"""Before a chat watch is polled: does its subscriber's own Run:ai access still read the project?

A watch made in chat shows its channel what its subscriber may read, so every poll asks the
`Authorizer` (with its cache, `AUTHZ_CACHE_TTL_S`) which kinds of workload in the project
that access reads now:

- none could be read (Run:ai failed): the watch is not polled this time and its mark stays,
  so a later poll catches up; nothing is posted on unknown, and nothing is stopped;
- no kind (the rule was removed, the project is gone, the subscriber has no Run:ai user):
  the watch stops, no longer polled, and its channel is told once, naming nothing of the
  project's workloads nor anyone's access; it stays listed as stopped until `unwatch` or a
  new `watch`;
- some kinds only: the watch goes on, each push posts only those (`bot.push.subscriber`
  checks every workload), and the channel is told once which kinds the watch covers (not
  whose access changed); and once more if it covers every kind again.

A notice is a work item like a failure's, posted once through the queue and journal. What
the channel was told is kept in the subscription, changed only if nobody changed it
meanwhile (`Subscriptions.replace`). `WATCHES` entries have no subscriber: not checked.
"""

from __future__ import annotations

from datetime import UTC, datetime

import structlog

from bot.authz import ALL_KINDS, ANY_KIND, Authorizer, Reason
from bot.ops.metrics import WATCH_POLLS
from bot.push import Kv, NoticeSpec, notice_item, subscriber_decision
from bot.watch.subscriptions import KINDS_TOLD, STOPPED, Subscription, Subscriptions, told_kinds
from bot.work import Intake, QueueUnavailable, WorkQueue, admit

__all__ = ["NOTICE_DEADLINE_S", "SubscriberGuard", "notice_text"]

#: A notice may wait this long in the queue before it is dropped (and logged).
NOTICE_DEADLINE_S = 86_400.0


def notice_text(subscription: Subscription, told: str) -> str:
    """What the channel is told when its watch stops, narrows, or covers every kind again.

    It says what the watch now covers, never whose access changed nor what that person may
    read: the channel learns what it will and will not be shown, nothing about anyone's grants.
    """
    s = subscription
    where = f"project {s.project} on {s.cluster_name}"
    again = f"`watch {s.project} on {s.cluster_name}`"
    if told == STOPPED:
        return (
            f"This channel no longer watches {where}: nothing more is posted for it. "
            f"Someone who may read every kind of workload there can {again} again; "
            f"`unwatch {s.project} on {s.cluster_name}` removes it."
        )
    if (kinds := told_kinds(told)) is not None:
        return (
            f"This channel's watch of {where} now covers only {kinds}: failures of other "
            f"kinds of workload there are no longer posted. Someone who may read every kind "
            f"there can {again} to have them all posted again."
        )
    return f"This channel's watch of {where} covers every kind of workload again."


class SubscriberGuard:
    """Checks each chat watch's subscriber before it is polled; stops and tells, once."""

    def __init__(
        self,
        authorizer: Authorizer,
        kv: Kv,
        subscriptions: Subscriptions,
        queue: WorkQueue,
        *,
        dedupe_ttl_s: int,
    ) -> None:
        self._authorizer, self._kv = authorizer, kv
        self._subscriptions, self._queue = subscriptions, queue
        self._dedupe_ttl_s = dedupe_ttl_s
        self._log = structlog.get_logger(__name__)

    async def admits(self, subscription: Subscription, raw: str) -> bool:
        """Whether to poll `subscription` (stored as `raw`) now; stops it when it must.

        Raises `QueueUnavailable` when a notice could not be queued (told at a later poll).
        """
        told = STOPPED
        if subscription.stopped_at is None:
            reads = await self._reads(subscription)
            if reads is None:
                WATCH_POLLS.labels(outcome="unchecked").inc()
                self._log.warning("watch_subscriber_unchecked", watch=subscription.id)
                return False
            told = reads
            if told == STOPPED:
                stopped = await self._stop(subscription, raw)
                if stopped is None:
                    return False  # unwatched or made again meanwhile: looked at next poll
                subscription, raw = stopped, stopped.model_dump_json()
        if told != subscription.told:
            await self._tell(subscription, raw, told)
        return subscription.stopped_at is None

    async def _stop(self, subscription: Subscription, raw: str) -> Subscription | None:
        """Keep it stopped, unless it changed meanwhile (None)."""
        stopped = subscription.model_copy(update={"stopped_at": datetime.now(UTC)})
        if not await self._subscriptions.replace(raw, stopped):
            return None
        # What an earlier poll found and did not queue stays unposted (and is not replayed
        # if the project is watched again).
        await self._kv.delete(f"batch:{subscription.id}")
        self._log.warning(
            "watch_stopped",
            watch=subscription.id,
            channel=subscription.target.channel,
            project=subscription.project,
            cluster_id=subscription.cluster_id,
            subscriber=subscription.subscribed_by,
        )
        return stopped

    async def _reads(self, subscription: Subscription) -> str | None:
        """The subscriber's access as `Subscription.told` says it; None: it could not be read."""
        s = subscription
        decision = await subscriber_decision(
            self._authorizer,
            s.target,
            s.subscribed_by,
            cluster=(s.cluster_id, s.cluster_name),
            project=s.project,
            kind=ANY_KIND,
        )
        if decision.reason is Reason.UNCHECKED:
            return None
        if decision.reason is Reason.AUTHZ_OFF or ALL_KINDS in decision.readable:
            return ""
        if not decision.allowed:
            return STOPPED
        return KINDS_TOLD + ",".join(sorted(decision.readable))

    async def _tell(self, subscription: Subscription, raw: str, told: str) -> None:
        """Queue the channel's notice (once: its turn is its dedupe key), then keep it told."""
        turn = subscription.notices + 1
        spec = NoticeSpec(target=subscription.target, text=notice_text(subscription, told))
        dedupe = f"watch:{subscription.id}:{subscription.since.isoformat()}:notice:{turn}"
        item = notice_item(spec, deadline_s=NOTICE_DEADLINE_S)
        result = await admit(self._queue, item, dedupe=dedupe, dedupe_ttl_s=self._dedupe_ttl_s)
        if result.intake is Intake.FULL:
            raise QueueUnavailable("the work queue is full")
        told_now = subscription.model_copy(update={"told": told, "notices": turn})
        await self._subscriptions.replace(raw, told_now)
