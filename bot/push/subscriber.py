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

from bot.authz import Authorizer, Reason
from bot.authz import Target as Scope
from bot.errors import BotError
from bot.ops.metrics import PUSH_SUPPRESSED
from bot.push.item import PushSpec, subscriber_identity
from diagnosis import WorkloadAccess

__all__ = ["SubscriberCheck", "SubscriberUnchecked"]


class SubscriberUnchecked(BotError):
    """The subscriber's access could not be read: nothing is posted; tried again later."""


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
        scope = Scope(
            workload.cluster_id,
            spec.cluster_name or workload.cluster_id,
            workload.project or "",
            kind=workload.kind,
        )
        identity = subscriber_identity(spec.target, spec.subscriber)
        decision = await self._authorizer.check(identity, scope)
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
