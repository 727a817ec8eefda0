"""What the push side queues: a failure to diagnose and post, unasked, to one channel.

A watch's poll or an alert becomes a `WorkItem` of platform `push` in the same durable queue
(and journal) as asked diagnoses. `Target` is the channel it goes to; `PushSpec` says which
workloads of which project (one, or several for a storm summary), why (`source`) and, for a
watch made in chat, who made it (`subscriber`); `AlertSpec` is an alert whose workload and
channel the worker still has to find; `NoticeSpec` is a watch's notice to its channel.
"""

from __future__ import annotations

from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from bot.authz import Identity
from bot.conversation import Incoming, ThreadKey
from bot.work import WorkItem, new_item

__all__ = [
    "BOT_USER",
    "PENDING",
    "PLATFORM",
    "AlertSpec",
    "NoticeSpec",
    "Pending",
    "PushSpec",
    "Target",
    "alert_item",
    "notice_item",
    "push_item",
    "subscriber_identity",
]

PLATFORM = "push"
#: The thread of a firing alert that is being answered right now.
PENDING: Final = "pending"
Pending = Literal["pending"]
#: The `user` of a pushed item's `Incoming`: nobody asked.
BOT_USER = "runai-why"

Platform = Literal["slack", "teams", "console"]


class Target(BaseModel):
    """A channel to post in: its platform, workspace (team or tenant) and channel ID."""

    model_config = ConfigDict(frozen=True)

    platform: Platform
    team: str = ""
    channel: str = Field(min_length=1)
    service_url: str | None = None
    """Teams: the Bot Connector URL of the conversation (from the activity that subscribed)."""
    conversation_type: str | None = None
    """Teams: `channel`, `groupChat` or `personal`, from that activity (None: not known)."""

    def key(self, thread: str) -> ThreadKey:
        """The conversation key of `thread` in this channel."""
        return ThreadKey(self.platform, self.team, self.channel, thread)

    def ident(self) -> str:
        """One string naming the channel, for keys."""
        return f"{self.platform}:{self.team}:{self.channel}"


class PushSpec(BaseModel):
    """Workloads of one project on one cluster to diagnose and post to `target`."""

    model_config = ConfigDict(frozen=True)

    source: Literal["watch", "alert"]
    target: Target
    cluster_id: str
    cluster_name: str | None = None
    project: str
    workload_ids: tuple[str, ...] = Field(min_length=1)
    kinds: tuple[str, ...] | None = None
    """Workload kinds (`Training`, ...) that may be posted; None: every kind."""
    window: str = "in the last poll"
    """How a storm summary names its time span ("in the last minute")."""
    storm_over: int = Field(default=1, ge=1)
    """A storm summary only when more than this many of `workload_ids` may be posted (the
    watch's `WATCH_STORM_THRESHOLD`); fewer are each posted on their own, so a summary never
    counts a failure the channel may not see."""
    symptom: str | None = None
    preemption_only: bool = False
    """A possible preemption (Pending after running): posted only if the diagnosis agrees."""
    alert_key: str | None = None
    """An alert's fingerprint and start: its thread is remembered for the resolution."""
    subscriber: str | None = None
    """Who made the watch in chat (`Subscription.subscribed_by`): each workload is posted
    only if their own Run:ai access reads it when it is posted. None: nobody in chat made
    it (`WATCHES`, `ALERT_CHANNELS`: the installer's decision)."""


class NoticeSpec(BaseModel):
    """A notice to post as a message of its own in `target` (a watch stopped, or narrowed)."""

    model_config = ConfigDict(frozen=True)

    target: Target
    text: str = Field(min_length=1)


def subscriber_identity(target: Target, who: str) -> Identity:
    """The person who made a watch in `target`'s channel, as authorization sees them.

    `who` is their confirmed e-mail (their Run:ai user), or, for a watch made while
    `AUTHZ_MODE=off` by someone without one, their chat user ID: no Run:ai user, so no
    access once authorization is on. Guest and external flags are as they were when the
    watch was made (it could not be made otherwise): only Run:ai is asked again.
    """
    email = who if "@" in who else None
    return Identity(platform=target.platform, team_id=target.team, user_id=who, email=email)


class AlertSpec(BaseModel):
    """One alert from Alertmanager, as its labels name it (resolved by the worker)."""

    model_config = ConfigDict(frozen=True)

    fingerprint: str
    starts_at: str
    status: Literal["firing", "resolved"]
    alertname: str = ""
    cluster: str | None = None
    """The `cluster` label (a name or an ID), else `ALERT_CLUSTER`."""
    project: str | None = None
    pod: str | None = None
    workload_name: str | None = None
    workload_id: str | None = None
    symptom: str | None = None
    """What the alert's reason says to confirm (`crashloop`, `image-pull`), if anything."""
    ends_at: str | None = None

    @property
    def key(self) -> str:
        """The alert's identity across Alertmanager's repeats: fingerprint and start."""
        return f"{self.fingerprint}:{self.starts_at}"


def _item(kind: str, target: Target, responder: BaseModel, deadline_s: float) -> WorkItem:
    incoming = Incoming(target.key(""), BOT_USER, directed=False)
    return new_item(
        platform=PLATFORM,
        kind=kind,
        incoming=incoming,
        responder=responder.model_dump(mode="json"),
        deadline_s=deadline_s,
    )


def push_item(spec: PushSpec, *, deadline_s: float) -> WorkItem:
    """The work item that diagnoses and posts `spec`."""
    return _item("watch" if len(spec.workload_ids) == 1 else "storm", spec.target, spec, deadline_s)


def notice_item(spec: NoticeSpec, *, deadline_s: float) -> WorkItem:
    """The work item that posts `spec`'s notice once."""
    return _item("notice", spec.target, spec, deadline_s)


def alert_item(spec: AlertSpec, *, deadline_s: float) -> WorkItem:
    """The work item that finds the alert's workload and channel, then posts (or resolves)."""
    nowhere = Target(platform="console", channel="alertmanager")  # decided by the worker
    return _item("alert", nowhere, spec, deadline_s)
