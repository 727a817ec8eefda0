"""Who may see what, for the engine: the asker's identity, Run:ai's decision, the channel policy.

A front end gives the engine an `Access`: the `Authorizer`, an `identify` callable that
turns an `Incoming` into an `Identity` (Slack: `users.info`; the console: a configured
e-mail), and the `CHANNEL_PROJECTS` policy. `Gate` is one turn's use of it: it checks the
project asked for by name before anything is listed, answers the diagnosis's per-workload
`authorize` callback, and tells a refusal to the asker only, audited.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field

from bot.audit import AuditSink, authz_denial_event
from bot.authz import Authorizer, Decision, Identity, Target, channel_allows
from bot.conversation.model import Incoming, Notice
from bot.metrics import AUTHZ_DENIALS
from diagnosis import Authorize, WorkloadAccess

__all__ = ["Access", "Gate", "Identify", "console_identity"]

Identify = Callable[[Incoming], Awaitable[Identity]]
"""The identity of the person behind an incoming message (never raises: see `Identity`)."""


def console_identity(email: str) -> Identify:
    """An `identify` that answers `Identity.console(email)` for everyone (the console demo)."""

    async def identify(_: Incoming) -> Identity:
        return Identity.console(email)

    return identify


@dataclass(frozen=True)
class Access:
    """The authorization a front end configures for its engine."""

    authorizer: Authorizer
    identify: Identify
    channel_projects: Mapping[str, Sequence[str]] = field(default_factory=dict)

    def public_in(self, channel: str, project: str | None) -> bool:
        """Whether an answer about `project` may be posted publicly in `channel`.

        An unmapped channel allows any project; a mapped one only its own (and an answer
        about no known project, there, is private too).
        """
        return channel_allows(self.channel_projects, channel, project or "")

    async def gate(self, incoming: Incoming, audit: AuditSink) -> Gate:
        """One turn's checks, as the person behind `incoming`."""
        return Gate(self, incoming, await self.identify(incoming), audit)


class Gate:
    """The checks of one turn, for one asker; remembers the first refusal by ID."""

    def __init__(
        self, access: Access, incoming: Incoming, identity: Identity, audit: AuditSink
    ) -> None:
        self._access, self._incoming, self.identity, self._audit = (
            access,
            incoming,
            identity,
            audit,
        )
        self.refused: Decision | None = None

    async def check(self, cluster_id: str, cluster_name: str, project: str) -> Decision:
        """Whether the asker may read workloads in `project`; asked before anything is listed."""
        return await self._access.authorizer.check(
            self.identity, Target(cluster_id, cluster_name, project)
        )

    def authorize(self, cluster_id: str, cluster_name: str) -> Authorize:
        """The diagnosis's per-workload callback (the asked cluster is named `cluster_name`)."""

        async def authorize(workload: WorkloadAccess) -> bool:
            name = cluster_name if workload.cluster_id == cluster_id else workload.cluster_id
            target = Target(workload.cluster_id, name, workload.project or "", kind=workload.kind)
            decision = await self._access.authorizer.check(self.identity, target)
            if not decision.allowed and self.refused is None:
                self.refused = decision
            return decision.allowed

        return authorize

    async def deny(self, decision: Decision, *, typed: str | None, by_id: bool) -> Notice:
        """The private denial, audited (user, project, cluster, reason) and counted by reason."""
        AUTHZ_DENIALS.labels(reason=decision.reason.value).inc()
        key = self._incoming.key
        await self._audit.record(
            authz_denial_event(
                platform=key.platform,
                team=key.team,
                channel=key.channel,
                user=self._incoming.user,
                cluster_id=decision.target.cluster_id,
                project=decision.target.project,
                reason=decision.reason.value,
                workload=typed,
            )
        )
        return Notice(decision.message(asked_id=typed if by_id else None), private=True)
