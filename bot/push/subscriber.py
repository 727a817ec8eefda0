"""A chat watch's subscriber, checked again for every workload its push would show.

A watch made in chat shows the channel what its subscriber's own Run:ai access reads, so
each workload a push is about (and every other one its answer would name) is posted only
if that access reads it, with its kind, when it is posted: a rule removed after the poll
that found it is honoured. The `Authorizer` decides, with its cache (`AUTHZ_CACHE_TTL_S`).
A check that could not be made is never a yes, nor a revocation: the item is tried again
later (`SubscriberUnchecked`). `WATCHES` and `ALERT_CHANNELS` have no subscriber: the
installer decided, and only the channel's scope applies.
"""

from __future__ import annotations

import structlog

from bot.authz import AnyKind, Authorizer, Decision, Reason
from bot.authz import Target as Scope
from bot.errors import BotError
from bot.ops.metrics import PUSH_SUPPRESSED
from bot.push.item import PushSpec, Target, subscriber_identity
from diagnosis import WorkloadAccess

__all__ = ["SubscriberCheck", "SubscriberUnchecked", "subscriber_decision"]


class SubscriberUnchecked(BotError):
    """The subscriber's access could not be read: nothing is posted; tried again later."""


async def subscriber_decision(
    authorizer: Authorizer,
    target: Target,
    subscriber: str,
    *,
    cluster: tuple[str, str],
    project: str,
    kind: str | AnyKind | None,
) -> Decision:
    """What `subscriber`'s own access (they subscribed `target`) reads of `kind` in `project`.

    `cluster` is its ID and the name a refusal would give it. The one place a watch's
    subscriber is turned into an identity and a scope, for the poll and the push alike.
    """
    identity = subscriber_identity(target, subscriber)
    scope = Scope(cluster[0], cluster[1], project, kind=kind)
    return await authorizer.check(identity, scope)


class SubscriberCheck:
    """The checks of one push item's workloads against its subscriber's access."""

    def __init__(self, authorizer: Authorizer, spec: PushSpec) -> None:
        self._authorizer, self._spec = authorizer, spec
        self.last_refusal: Reason | None = None
        """Why the last workload refused was refused (the one an `AccessDenied` is about)."""
        self._log = structlog.get_logger(__name__)

    async def reads(self, workload: WorkloadAccess) -> bool:
        """Whether the subscriber may read `workload` now (True without a subscriber)."""
        spec = self._spec
        if spec.subscriber is None:
            return True
        decision = await subscriber_decision(
            self._authorizer,
            spec.target,
            spec.subscriber,
            cluster=(workload.cluster_id, spec.cluster_name or workload.cluster_id),
            project=workload.project or "",
            kind=workload.kind,
        )
        if not decision.allowed:
            self.last_refusal = decision.reason
        return decision.allowed

    def refused(self, workload_id: str) -> None:
        """The workload asked for was refused: raise if unchecked, else count and log it."""
        reason = self.last_refusal
        fields = {"workload_id": workload_id, "project": self._spec.project}
        if reason is Reason.UNCHECKED:
            self._log.warning("push_subscriber_unchecked", **fields)
            raise SubscriberUnchecked(workload_id)
        if reason is None:  # the channel's own scope refused it
            self._log.warning("push_out_of_scope", **fields)
            return
        PUSH_SUPPRESSED.labels(reason="subscriber_access").inc()
        self._log.warning("push_subscriber_refused", reason=reason.value, **fields)
