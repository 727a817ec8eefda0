"""`Authorizer`: may this person read workloads of kind K in project P on cluster C? Run:ai decides.

For a person with a confirmed e-mail it reads, through the bot's service account, the rules
of `subjectType=user` for the e-mail and of `subjectType=group` for the groups
`GET /api/v1/users` lists for that username; the roles; the project (by cluster and name);
and, for department-scoped rules, that department's projects. `bot.authz.policy` decides
from those. `reach` answers the question before any cluster is named: on which clusters may
they read anything at all? Any failed lookup fails closed (`Reason.UNCHECKED`). Answers are
cached per user for `cache_ttl_s` in the Redis hash `runai-why:authz:decisions:<e-mail>`
(`bot.authz.cache`: field `<cluster id>/<project>`, `clusters` for the reach, or
`department:<cluster id>/<department id>` for a department's figures), so one
`DEL` forgets a person; failures are never cached. Concurrent lookups of one person share
one flight.

A cold ask waits on few lookups one after another: `prefetch` starts a person's rules and
roles (which no project or kind changes) when their turn starts, next to the token, the
cluster list and the workload's status, unless an answer about them is cached; a check
then waits only for the project, or for nothing when a system, tenant or cluster rule
already reads every kind of workload there.

`reads_department` (may they see a department's quota and usage?) decides from the grants
their check just read: no further lookup.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Final, Literal

import redis.asyncio as redis
import structlog

from bot.authz.cache import DECISION_CACHE_PREFIX, DecisionCache, Entry
from bot.authz.decision import ANY_KIND, Decision, Reach, Reason, Target
from bot.authz.lookups import Lookups
from bot.authz.policy import Grant, reads_department
from bot.authz.reads import AccessReader, readable_names
from bot.authz.sharing import Sharing
from bot.durable.flight import Flights
from bot.durable.tasks import stopped
from diagnosis import DiagnosisError

if TYPE_CHECKING:
    from bot.authz.identity import Identity
    from bot.config import Settings

__all__ = ["DECISION_CACHE_PREFIX", "AccessReader", "Authorizer", "AuthzMode"]

AuthzMode = Literal["runai", "off"]


#: The cache field of `Authorizer.reach` (a project's field always holds a `/`).
_REACH_FIELD: Final = "clusters"
#: The cache field of `Authorizer.readable_projects` (followed by the cluster's ID).
_PROJECTS_FIELD: Final = "projects:"
#: The cache field of `Authorizer.reads_department` (followed by `<cluster id>/<department id>`).
_DEPARTMENT_FIELD: Final = "department:"


class Authorizer(Lookups):
    """Decides, per person and project, whether anything about its workloads may be shown.

    Args:
        runai: the access-model reader (the bot's `RunaiClient`).
        mode: "runai" (default) asks Run:ai; "off" allows everyone Run:ai would be asked about.
        allow_guests: let guest accounts through (default: denied).
        allow_external: let users of other organisations through (default: denied).
        redis_client: the decision cache; None caches nothing.
        cache_ttl_s: how long a decision is reused; 0 turns the cache off.
        clock: epoch seconds (the cache's notion of age).
        flights: shares one person's lookups between their concurrent requests, across
            replicas (`bot.durable.flight`); a storm of one asker's requests looks them up once.
    """

    def __init__(
        self,
        runai: AccessReader,
        *,
        mode: AuthzMode = "runai",
        allow_guests: bool = False,
        allow_external: bool = False,
        redis_client: redis.Redis | None = None,
        cache_ttl_s: int = 60,
        clock: Callable[[], float] = time.time,
        flights: Flights | None = None,
    ) -> None:
        self._runai = runai
        self._sharing = Sharing(flights, cache_ttl_s)
        self.mode: AuthzMode = mode
        self._allow_guests = allow_guests
        self._allow_external = allow_external
        self._cache = DecisionCache(redis_client, cache_ttl_s, clock)
        self._ttl_s = cache_ttl_s
        self._clock = clock
        #: Grants `prefetch` started, by e-mail: (when, the read), for the next check.
        self._prefetched: dict[str, tuple[float, asyncio.Task[list[Grant]]]] = {}
        #: The grants each person's last check used: (when, the read), for a department's.
        self._recent: dict[str, tuple[float, asyncio.Task[list[Grant]]]] = {}
        self._background: set[asyncio.Task[None]] = set()
        self._log = structlog.get_logger("bot.authz")

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        runai: AccessReader,
        redis_client: redis.Redis | None,
        flights: Flights | None = None,
    ) -> Authorizer:
        """The authorizer `AUTHZ_*` configures; logs `authz_disabled` when `AUTHZ_MODE=off`."""
        if settings.authz.mode == "off":
            structlog.get_logger("bot.authz").warning(
                "authz_disabled",
                detail="AUTHZ_MODE=off: every asker sees every project the service account can",
            )
        return cls(
            runai,
            mode=settings.authz.mode,
            allow_guests=settings.authz.allow_guests,
            allow_external=settings.authz.allow_external,
            redis_client=redis_client,
            cache_ttl_s=settings.authz.cache_ttl_s,
            flights=flights,
        )

    def _screened(self, identity: Identity) -> tuple[Reason, str | None] | None:
        """The refusal (or `AUTHZ_OFF`) decided by who they are, before Run:ai is asked."""
        if identity.lookup_failed is not None:
            return Reason.UNCHECKED, identity.lookup_failed
        if identity.is_guest and not self._allow_guests:
            return Reason.GUEST, None
        if identity.is_external and not self._allow_external:
            return Reason.EXTERNAL, None
        if self.mode == "off":
            return Reason.AUTHZ_OFF, None
        if not identity.email:
            return Reason.NO_EMAIL, None
        return None

    def prefetch(self, identity: Identity) -> None:
        """Start reading the person's grants, unless an answer about them is cached.

        Never raises and decides nothing: a check still asks for what it needs, and a
        failed read here is simply read again there (and fails closed if it fails again).
        """
        if self._screened(identity) is not None:
            return
        task = asyncio.ensure_future(self._prefetch(str(identity.email)))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _prefetch(self, email: str) -> None:
        if await self._cache.read_all(email.casefold()):
            return  # answered lately: the next checks are most likely answered there too
        with contextlib.suppress(DiagnosisError):  # read again by the check that needs it
            await self._grants_of(email, prefetch=True)

    async def check(self, identity: Identity, target: Target) -> Decision:
        """The decision for `identity` about `target` (never raises for upstream failures).

        Allowed when Run:ai grants read on the target's kind in its project (`ANY_KIND`: on
        some kind); a kind that is unknown (None) needs read on every kind of workload.
        """
        screened = self._screened(identity)
        if screened is not None:
            return Decision(screened[0], target, failed_call=screened[1])
        email = str(identity.email)

        async def lookup() -> Entry:
            return {"readable": sorted(await self._readable(email, target))}

        try:
            entry = await self._decided(email, f"{target.cluster_id}/{target.project}", lookup)
        except DiagnosisError as error:
            return Decision(Reason.UNCHECKED, target, failed_call=self._failed(error))
        readable = frozenset(str(r) for r in entry["readable"])
        decision = Decision(Reason.ALLOWED, target, readable)
        if target.kind is ANY_KIND:
            return decision if readable else Decision(Reason.NO_READ_ACCESS, target, readable)
        if not decision.allows_kind(target.kind):
            return Decision(Reason.NO_READ_ACCESS, target, readable)
        return decision

    async def reach(self, identity: Identity) -> Reach:
        """On which clusters `identity` may read anything (never raises for upstream failures).

        Asked before any cluster is named to them: without a readable project anywhere
        the asker is refused; otherwise only the clusters their rules' scopes cover are
        offered. `AUTHZ_MODE=off` reaches every cluster.
        """
        screened = self._screened(identity)
        if screened is not None:
            reason, failed_call = screened
            return Reach(reason, everywhere=reason is Reason.AUTHZ_OFF, failed_call=failed_call)
        email = str(identity.email)

        async def lookup() -> Entry:
            everywhere, clusters = await self._reach(email)
            return {"everywhere": everywhere, "clusters": sorted(clusters)}

        try:
            entry = await self._decided(email, _REACH_FIELD, lookup)
        except DiagnosisError as error:
            return Reach(Reason.UNCHECKED, failed_call=self._failed(error))
        everywhere, clusters = bool(entry["everywhere"]), frozenset(map(str, entry["clusters"]))
        reason = Reason.ALLOWED if everywhere or clusters else Reason.NO_READ_ACCESS
        return Reach(reason, everywhere=everywhere, clusters=clusters)

    async def reads_department(
        self, identity: Identity, cluster_id: str, department_id: str
    ) -> bool:
        """Whether `identity` may see a department's quota and usage (never raises).

        Those sum every project's in the department, which reading one project's workloads
        does not cover: one of their rules must grant `read` on `department` over a scope
        that covers it (`policy.reads_department`). Decided from the grants their last check
        read (no further lookup), cached and shared like every other decision about them.
        A refusal is no denial (the figures are a named gap): nothing is audited. Guests,
        externals and askers without an e-mail may not; a failed lookup refuses.
        """
        screened = self._screened(identity)
        if screened is not None:
            return screened[0] is Reason.AUTHZ_OFF
        email = str(identity.email)

        async def lookup() -> Entry:
            grants = await self._grants_of(email, recent=True)
            found = reads_department(grants, cluster_id=cluster_id, department_id=department_id)
            return {"reads": found}

        field = f"{_DEPARTMENT_FIELD}{cluster_id}/{department_id}"
        try:
            entry = await self._decided(email, field, lookup, shared=False)
        except DiagnosisError as error:
            self._failed(error)
            return False
        return entry.get("reads") is True

    async def readable_projects(self, identity: Identity, cluster_id: str) -> tuple[str, ...]:
        """The names of the projects on `cluster_id` where `identity` may read some workloads.

        For suggesting near matches to a mistyped project, so it names only what they may
        read: nothing when they are refused or their access cannot be checked. Cached and
        shared like every other decision about them.
        """
        screened = self._screened(identity)
        if screened is not None and screened[0] is not Reason.AUTHZ_OFF:
            return ()
        try:
            if screened is not None:  # AUTHZ_MODE=off: every project the bot can see
                projects = await self._runai.list_projects(cluster_id=cluster_id)
                return tuple(sorted(p.name for p in projects))
            email = str(identity.email)

            async def lookup() -> Entry:
                names = await readable_names(self._runai, email, cluster_id)
                return {"projects": sorted(names)}

            entry = await self._decided(email, f"{_PROJECTS_FIELD}{cluster_id}", lookup)
        except DiagnosisError as error:
            self._failed(error)
            return ()
        return tuple(str(name) for name in entry["projects"])

    def status(self) -> dict[str, str | bool | int]:
        """What `/readyz` should show: the mode (so `off` is visible) and the defaults in force."""
        return {
            "authz_mode": self.mode,
            "authz_allow_guests": self._allow_guests,
            "authz_allow_external": self._allow_external,
            "authz_cache_ttl_s": self._ttl_s,
        }

    async def aclose(self) -> None:
        """Stop the reads started ahead, before the clients they use are closed.

        A prefetch nobody waited for would otherwise go on after shutdown and open a
        Redis connection on a closed pool, left for the garbage collector.
        """
        tasks = {
            *self._background,
            *(task for _, task in self._prefetched.values()),
            *(task for _, task in self._recent.values()),
        }
        self._prefetched.clear()
        self._recent.clear()
        await stopped(tasks)

    async def forget(self, email: str) -> None:
        """Drop every cached decision about `email` (e.g. after its access changed)."""
        self._recent.pop(email, None)
        await self._cache.forget(email.casefold())
