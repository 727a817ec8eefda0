"""Who may see what, for the engine: the asker's identity, Run:ai's decision, the channel policy.

A front end gives the engine an `Access`: the `Authorizer`, an `identify` callable that
turns an `Incoming` into an `Identity` (Slack: `users.info`; the console: a configured
e-mail), and the `CHANNEL_PROJECTS` policy. `Gate` is one turn's use of it: where the asker
may read at all (before any cluster is named), the project asked for by name (before
anything is listed), every workload with its kind (the diagnosis's `authorize` callback, and
a thread's earlier answer before it is shown again), every department whose quota and usage
an answer would show (the same callback; its refusal is a gap in the answer, not a denial),
and a refusal told to the asker only, audited.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field

from bot.authz import ANY_KIND, Authorizer, Decision, Identity, Reach, Target, channel_allows
from bot.conversation.model import Incoming, Notice
from bot.ops.audit import AuditSink
from bot.ops.audit_events import authz_denial_event
from bot.ops.metrics import AUTHZ_DENIALS
from diagnosis import Authorize, DepartmentAccess, WorkloadAccess, WorkloadRef

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

    async def reach(self) -> Reach:
        """Where the asker may read anything at all; asked before any cluster is named."""
        return await self._access.authorizer.reach(self.identity)

    async def may_list(self, cluster_id: str, cluster_name: str, project: str) -> Decision:
        """Whether the asker may read any kind of workload in `project`.

        The one check about no particular workload: asked before a by-name listing, whose
        every match is then checked with its own kind (`authorize`).
        """
        target = Target(cluster_id, cluster_name, project, kind=ANY_KIND)
        return await self._access.authorizer.check(self.identity, target)

    async def may_see(self, workload: WorkloadRef, cluster_name: str) -> Decision:
        """Whether the asker may see `workload`, a thread's earlier answer, today.

        The same full target as when it was diagnosed: its cluster, project and kind.
        """
        target = Target(
            workload.cluster_id, cluster_name, workload.project or "", kind=workload.kind
        )
        return await self._access.authorizer.check(self.identity, target)

    async def readable_projects(self, cluster_id: str) -> tuple[str, ...]:
        """The projects on `cluster_id` the asker may read (for near-match suggestions)."""
        return await self._access.authorizer.readable_projects(self.identity, cluster_id)

    def authorize(self, cluster_id: str, cluster_name: str) -> Authorize:
        """The diagnosis's per-workload callback (the asked cluster is named `cluster_name`).

        Asked about a department, it says whether the asker may see its quota and usage; a
        refusal there is no denial (the answer names the figures as not shown).
        """

        async def authorize(workload: WorkloadAccess | DepartmentAccess) -> bool:
            if isinstance(workload, DepartmentAccess):
                return await self._access.authorizer.reads_department(
                    self.identity, workload.cluster_id, workload.department_id
                )
            name = cluster_name if workload.cluster_id == cluster_id else workload.cluster_id
            target = Target(workload.cluster_id, name, workload.project or "", kind=workload.kind)
            decision = await self._access.authorizer.check(self.identity, target)
            if not decision.allowed and self.refused is None:
                self.refused = decision
            return decision.allowed

        return authorize

    async def deny(
        self,
        decision: Decision | Reach,
        *,
        typed: str | None = None,
        by_id: bool = False,
        thread: bool = False,
    ) -> Notice:
        """The private denial, audited (user, project, cluster, reason) and counted by reason.

        `typed` is the workload as the asker gave it (audited; named back only `by_id`);
        `thread` refuses a thread's earlier answer without naming anything of it. A `Reach`
        refusal (no readable project anywhere) names no cluster.
        """
        AUTHZ_DENIALS.labels(reason=decision.reason.value).inc()
        if isinstance(decision, Reach):
            cluster_id, project, text = "", "", decision.message()
        else:
            cluster_id, project = decision.target.cluster_id, decision.target.project
            text = decision.message(asked_id=typed if by_id else None, thread=thread)
        key = self._incoming.key
        await self._audit.record(
            authz_denial_event(
                platform=key.platform,
                team=key.team,
                channel=key.channel,
                user=self._incoming.user,
                cluster_id=cluster_id,
                project=project,
                reason=decision.reason.value,
                workload=typed,
            )
        )
        return Notice(text, private=True)
