"""`Authorizer`: may this person read workloads in project P on cluster C? Run:ai decides.

For a person with a confirmed e-mail it reads, through the bot's service account, the rules
of `subjectType=user` for the e-mail and of `subjectType=group` for the groups
`GET /api/v1/users` lists for that username; the roles; the project (by cluster and name);
and, for department-scoped rules, that department's projects. `bot.authz.policy` decides
from those. Any failed lookup fails closed (`Reason.UNCHECKED`). Answers are cached per user
for `cache_ttl_s` in the Redis hash `runai-why:authz:decisions:<e-mail>` (field
`<cluster id>/<project>`), so one `DEL` forgets a person; failures are never cached.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Final, Literal, Protocol

import redis.asyncio as redis
import structlog

from bot.authz.decision import Decision, Reason, Target
from bot.authz.policy import read_grants, readable_resources
from bot.flight import LOOKUP_REUSE_S, Flights
from diagnosis import AccessRule, DiagnosisError, Payload, Project, Role, RunaiUser, UpstreamError

if TYPE_CHECKING:
    from bot.authz.identity import Identity
    from bot.settings import Settings

__all__ = ["DECISION_CACHE_PREFIX", "AccessReader", "Authorizer", "AuthzMode"]

DECISION_CACHE_PREFIX: Final = "runai-why:authz:decisions:"
AuthzMode = Literal["runai", "off"]


class AccessReader(Protocol):
    """The reads the authorizer needs; `diagnosis.RunaiClient` provides them."""

    async def list_access_rules(
        self, *, subject_type: str, subject_ids: Sequence[str]
    ) -> list[AccessRule]:
        """Live rules of these subjects."""
        ...

    async def find_users(self, username: str) -> list[RunaiUser]:
        """Users with exactly this username."""
        ...

    async def list_roles(self) -> list[Role]:
        """Every role."""
        ...

    async def list_projects(
        self,
        *,
        cluster_id: str | None = None,
        name: str | None = None,
        parent_id: str | None = None,
    ) -> list[Project]:
        """Projects matching every given filter."""
        ...


async def _all(
    rules: Awaitable[list[AccessRule]],
    users: Awaitable[list[RunaiUser]],
    roles: Awaitable[list[Role]],
    projects: Awaitable[list[Project]],
) -> tuple[list[AccessRule], list[RunaiUser], list[Role], list[Project]]:
    """The four first lookups, concurrently; the first failure is raised after all finish."""
    done = await asyncio.gather(rules, users, roles, projects, return_exceptions=True)
    for result in done:
        if isinstance(result, BaseException):
            raise result
    return done  # type: ignore[return-value]


class Authorizer:
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
            replicas (`bot.flight`); a storm of one asker's requests looks them up once.
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
        self._flights = flights
        self.mode: AuthzMode = mode
        self._allow_guests = allow_guests
        self._allow_external = allow_external
        self._redis = redis_client
        self._ttl_s = cache_ttl_s
        self._clock = clock
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
        if settings.authz_mode == "off":
            structlog.get_logger("bot.authz").warning(
                "authz_disabled",
                detail="AUTHZ_MODE=off: every asker sees every project the service account can",
            )
        return cls(
            runai,
            mode=settings.authz_mode,
            allow_guests=settings.authz_allow_guests,
            allow_external=settings.authz_allow_external,
            redis_client=redis_client,
            cache_ttl_s=settings.authz_cache_ttl_s,
            flights=flights,
        )

    async def check(self, identity: Identity, target: Target) -> Decision:
        """The decision for `identity` about `target` (never raises for upstream failures)."""
        if identity.lookup_failed is not None:
            return Decision(Reason.UNCHECKED, target, failed_call=identity.lookup_failed)
        if identity.is_guest and not self._allow_guests:
            return Decision(Reason.GUEST, target)
        if identity.is_external and not self._allow_external:
            return Decision(Reason.EXTERNAL, target)
        if self.mode == "off":
            return Decision(Reason.AUTHZ_OFF, target)
        if not identity.email:
            return Decision(Reason.NO_EMAIL, target)
        email = identity.email.casefold()
        readable = await self._cached(email, target)
        if readable is None:
            try:
                readable = await self._looked_up(identity.email, target)
            except DiagnosisError as error:
                call = error.operation if isinstance(error, UpstreamError) else "authorization"
                self._log.warning("authz_unchecked", failed_call=call, error=type(error).__name__)
                return Decision(Reason.UNCHECKED, target, failed_call=call)
            await self._store(email, target, readable)
        decision = Decision(Reason.ALLOWED, target, readable)
        wanted = target.kind is not None and not decision.allows_kind(target.kind)
        if not readable or wanted:
            return Decision(Reason.NO_READ_ACCESS, target, readable)
        return decision

    def status(self) -> dict[str, str | bool | int]:
        """What `/readyz` should show: the mode (so `off` is visible) and the defaults in force."""
        return {
            "authz_mode": self.mode,
            "authz_allow_guests": self._allow_guests,
            "authz_allow_external": self._allow_external,
            "authz_cache_ttl_s": self._ttl_s,
        }

    async def forget(self, email: str) -> None:
        """Drop every cached decision about `email` (e.g. after its access changed)."""
        if self._redis is not None:
            await self._redis.delete(DECISION_CACHE_PREFIX + email.casefold())

    # ------------------------------------------------------------------ the lookups
    async def _looked_up(self, email: str, target: Target) -> frozenset[str]:
        """`_readable`, shared with the same person's concurrent requests (kept a few seconds)."""
        if self._flights is None:
            return await self._readable(email, target)

        async def lookup() -> Payload:
            return Payload(json.dumps(sorted(await self._readable(email, target))), keep=True)

        key = f"{email.casefold()}|{target.cluster_id}|{target.project}"
        keep_s = min(self._ttl_s, LOOKUP_REUSE_S)  # `forget` is honoured within seconds
        text, _ = await self._flights.run("authz", key, lookup, keep_s=keep_s)
        return frozenset(json.loads(text))

    async def _readable(self, email: str, target: Target) -> frozenset[str]:
        own, users, roles, projects = await _all(
            self._runai.list_access_rules(subject_type="user", subject_ids=[email]),
            self._runai.find_users(email),
            self._runai.list_roles(),
            self._runai.list_projects(cluster_id=target.cluster_id, name=target.project),
        )
        groups = sorted({g for user in users for g in user.groups})
        rules = list(own)
        if groups:
            rules += await self._runai.list_access_rules(subject_type="group", subject_ids=groups)
        grants = read_grants(rules, roles)
        project = next((p for p in projects if p.name == target.project), None)
        if not grants or project is None:
            return frozenset()
        departments = sorted({g.rule.scope_id for g in grants if g.rule.scope_type == "department"})
        members: dict[str, frozenset[str]] = {}
        for department in departments:
            listed = await self._runai.list_projects(parent_id=department)
            members[department] = frozenset(p.id for p in listed)
        return readable_resources(
            grants, cluster_id=target.cluster_id, project=project, department_projects=members
        )

    # ------------------------------------------------------------------ the cache
    def _field(self, target: Target) -> str:
        return f"{target.cluster_id}/{target.project}"

    async def _cached(self, email: str, target: Target) -> frozenset[str] | None:
        if self._redis is None or self._ttl_s <= 0:
            return None
        try:
            async with asyncio.timeout(2):
                raw = await self._redis.hget(DECISION_CACHE_PREFIX + email, self._field(target))
            if raw is None:
                return None
            entry = json.loads(raw)
            if self._clock() - float(entry["at"]) >= self._ttl_s:
                return None
            return frozenset(str(r) for r in entry["readable"])
        except Exception as error:  # noqa: BLE001 - a cache problem only costs a lookup
            self._log.warning("authz_cache_failed", error=type(error).__name__)
            return None

    async def _store(self, email: str, target: Target, readable: frozenset[str]) -> None:
        if self._redis is None or self._ttl_s <= 0:
            return
        entry = json.dumps({"readable": sorted(readable), "at": self._clock()})
        key = DECISION_CACHE_PREFIX + email
        try:
            async with asyncio.timeout(2), self._redis.pipeline(transaction=True) as pipe:
                pipe.hset(key, self._field(target), entry)
                pipe.expire(key, self._ttl_s)
                await pipe.execute()
        except Exception as error:  # noqa: BLE001 - a cache problem only costs a lookup
            self._log.warning("authz_cache_failed", error=type(error).__name__)
