"""Which channels watch which projects: subscriptions kept in Redis, and those `WATCHES` declares.

A subscription is a channel (`Target`), a cluster (its ID, and the name it was given by) and
a project, with who subscribed and whether preemptions are posted too. Those made in chat
live in one hash (`runai-why:push:watches`) and survive restarts; those the `WATCHES`
setting declares (GitOps installs) are read from the settings on every poll and cannot be
removed from chat. A subscription starts watching at the moment it was made: failures from
before it are never posted. One made in chat also keeps what its channel was told about
its subscriber's access (`bot.watch.guard`): whether it stopped, or posts fewer kinds.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Literal

import structlog
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from bot.push import Kv, Target

__all__ = [
    "KINDS_TOLD",
    "STOPPED",
    "WATCHES_KEY",
    "Added",
    "Declared",
    "Subscription",
    "Subscriptions",
    "told_kinds",
]

WATCHES_KEY = "watches"
#: `Subscription.told` of a watch that stopped (and whose channel was told so).
STOPPED = "stopped"
#: `Subscription.told` of a watch that posts only some kinds: this, then their resources.
KINDS_TOLD = "kinds:"


def told_kinds(told: str) -> str | None:
    """The kinds a `told` state lets through, as said ("trainings and workspaces"), or None."""
    if not told.startswith(KINDS_TOLD):
        return None
    return " and ".join(told.removeprefix(KINDS_TOLD).split(","))


Added = Literal["added", "replaced", "exists"]
"""What `Subscriptions.add` did: a new watch, one in place of a stopped or narrowed one, or
nothing (the channel already watches that project, every kind of it)."""


class Subscription(BaseModel):
    """One channel watching one project on one cluster."""

    model_config = ConfigDict(frozen=True)

    target: Target
    cluster_id: str
    cluster_name: str
    project: str
    preemptions: bool = False
    subscribed_by: str = ""
    """Who subscribed (their confirmed e-mail), or `WATCHES` for a declared one."""
    since: datetime = Field(default_factory=lambda: datetime.now(UTC))
    declared: bool = False
    stopped_at: datetime | None = None
    """When it stopped because its subscriber's access no longer reads the project (it is
    no longer polled; listed as stopped until `unwatch`, or a new `watch` replaces it)."""
    told: str = ""
    """What the channel was last told about its subscriber's access: "" (nothing: every
    kind, as at the start), `STOPPED`, or `KINDS_TOLD` and the resources (`trainings`, ...)
    of the only kinds posted."""
    notices: int = 0
    """How many such notices were queued (each one's turn, so each is posted once)."""

    @property
    def id(self) -> str:
        """Stable across restarts: the channel, cluster and project."""
        raw = f"{self.target.ident()}|{self.cluster_id}|{self.project}"
        return hashlib.sha256(raw.encode()).hexdigest()[:24]


class Declared(BaseModel):
    """One entry of `WATCHES`: `{"channel": "C0123", "project": "nlp", "cluster": "prod-a"}`.

    `cluster` is a name or an ID; `platform` is `slack` (default), `teams` (with the
    conversation's `service_url`, which Teams gives only with an activity, and its tenant ID
    as `team`, which the settings fill in from `TEAMS_TENANT_ID`) or `console`.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    channel: str = Field(min_length=1)
    project: str = Field(min_length=1)
    cluster: str = Field(min_length=1)
    platform: Literal["slack", "teams", "console"] = "slack"
    team: str = ""
    service_url: str | None = None
    preemptions: bool = False

    @model_validator(mode="after")
    def _teams_has_an_address(self) -> Declared:
        if self.platform == "teams" and not self.service_url:
            raise ValueError("a Teams watch needs the conversation's service_url")
        if self.platform == "teams" and not self.team:
            raise ValueError("a Teams watch needs its tenant ID as team (or TEAMS_TENANT_ID set)")
        return self

    def target(self) -> Target:
        """The channel it posts in, keyed as its own conversations are (buttons find them)."""
        return Target(
            platform=self.platform,
            team=self.team,
            channel=self.channel,
            service_url=self.service_url,
        )


class Subscriptions:
    """Chat subscriptions in `Kv`, and the declared ones (cluster names resolved by the poller)."""

    def __init__(self, kv: Kv, declared: Sequence[Declared] = ()) -> None:
        self._kv = kv
        self.declared = tuple(declared)
        self._log = structlog.get_logger(__name__)

    async def add(self, subscription: Subscription) -> Added:
        """Keep it, unless the channel already watches that project, every kind of it.

        One that stopped is replaced and starts afresh (what failed meanwhile is never
        posted); one that posts only some kinds is replaced from where it is (its `since`).
        """
        kept = next((s for s, _ in await self.entries() if s.id == subscription.id), None)
        if kept is not None and kept.stopped_at is None and not kept.told:
            return "exists"
        if kept is not None and kept.stopped_at is None:  # its notices go on counting
            subscription = subscription.model_copy(
                update={"since": kept.since, "notices": kept.notices}
            )
        await self._kv.hset(WATCHES_KEY, subscription.id, subscription.model_dump_json())
        return "added" if kept is None else "replaced"

    async def replace(self, old: str, new: Subscription) -> bool:
        """Keep `new` in place of the stored `old` (its JSON as read), only if still there.

        False when it changed or was removed meanwhile (an `unwatch`, a new `watch`): a
        poller never brings back or overwrites what a person just did.
        """
        return await self._kv.hreplace(WATCHES_KEY, new.id, old, new.model_dump_json())

    async def remove(self, target: Target, cluster_id: str, project: str) -> bool:
        """Stop one chat subscription; False when there was none."""
        probe = Subscription(target=target, cluster_id=cluster_id, cluster_name="", project=project)
        return await self._kv.hdel(WATCHES_KEY, probe.id)

    async def entries(self) -> list[tuple[Subscription, str]]:
        """Every chat subscription with its JSON as stored (for `replace`), in order.

        One that no longer reads is logged and left out.
        """
        found = []
        for key, raw in (await self._kv.hgetall(WATCHES_KEY)).items():
            try:
                found.append((Subscription.model_validate_json(raw), raw))
            except ValidationError:
                self._log.warning("watch_unreadable", key=key)
        return sorted(found, key=lambda e: (e[0].target.ident(), e[0].cluster_name, e[0].project))

    async def stored(self) -> list[Subscription]:
        """Every chat subscription (one that no longer reads is logged and left out)."""
        return [s for s, _ in await self.entries()]

    async def of_channel(self, target: Target) -> list[Subscription]:
        """The chat subscriptions of one channel."""
        return [s for s in await self.stored() if s.target.ident() == target.ident()]

    async def teams_target(self, channel: str) -> Target | None:
        """A Teams conversation as one of its watches keeps it: tenant and service URL.

        Teams gives a conversation's address only with an activity, so an alert can be posted
        only where a watch (made in chat, or in `WATCHES`) recorded it.
        """
        found = [s.target for s in await self.stored()]
        found += [d.target() for d in self.declared]
        return next(
            (t for t in found if t.platform == "teams" and t.channel == channel and t.service_url),
            None,
        )

    def declared_in(self, target: Target) -> list[Declared]:
        """The `WATCHES` entries of one channel."""
        return [
            d
            for d in self.declared
            if d.channel == target.channel and d.platform == target.platform
        ]
