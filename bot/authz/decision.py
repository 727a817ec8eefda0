"""What an authorization check is about (`Target`) and what it found (`Decision`, `Reach`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum, StrEnum
from typing import Final

__all__ = [
    "ALL_KINDS",
    "ANY_KIND",
    "DEPARTMENT_READ",
    "READ_RESOURCES",
    "AnyKind",
    "Decision",
    "Reach",
    "Reason",
    "Target",
    "resource_for_kind",
]

ALL_KINDS = "workloads"
"""The resource type whose `read` covers every kind of workload."""

READ_RESOURCES = frozenset({ALL_KINDS, "trainings", "workspaces", "inferences"})
"""Resource types a role may grant `read` on that let a person see (some) workloads."""

DEPARTMENT_READ = "department"
"""The resource type whose `read` lets a person see a department (its quota and usage)."""

_KIND_RESOURCES = {
    "training": "trainings",
    "train": "trainings",
    "distributed": "trainings",
    "workspace": "workspaces",
    "interactive": "workspaces",
    "inference": "inferences",
    "distributedinference": "inferences",
}


def resource_for_kind(workload_type: str | None) -> str | None:
    """The kind-specific resource type of a workload `type` (`Training` → `trainings`).

    None for a type with no kind-specific permission: only `read` on `workloads` covers it.
    Distributed trainings count as trainings, distributed inference as inferences.
    """
    normalised = "".join(c for c in (workload_type or "").casefold() if c.isalnum())
    return _KIND_RESOURCES.get(normalised)


class Reason(StrEnum):
    """Why a person may, or may not, see workloads of a project."""

    ALLOWED = "allowed"
    """Run:ai grants them read access."""
    AUTHZ_OFF = "authz_off"
    """`AUTHZ_MODE=off`: the Run:ai check is switched off (guests and externals still apply)."""
    NO_READ_ACCESS = "no_read_access"
    """No rule of theirs (or their groups) grants read on these workloads."""
    GUEST = "guest"
    """A guest (Slack `is_restricted` / `is_ultra_restricted`) and guests are not allowed."""
    EXTERNAL = "external"
    """From another organisation (Slack Connect) and external users are not allowed."""
    NO_EMAIL = "no_confirmed_email"
    """No confirmed e-mail address, so there is no Run:ai user to check."""
    UNCHECKED = "access_unchecked"
    """The identity or authorization lookups failed: access could not be checked."""


class AnyKind(Enum):
    """The type of `ANY_KIND` (a one-member enum, so the type checker can tell it apart)."""

    ANY_KIND = "any kind"


ANY_KIND: Final = AnyKind.ANY_KIND
"""A `Target.kind` that is about no one workload: "may they read any kind in the project?"

Only for the check before a by-name listing, whose every match is then checked again with
its own kind; anything shown about a workload is checked with that workload's kind.
"""


@dataclass(frozen=True)
class Target:
    """What is asked: workloads of project `project` (name) on cluster `cluster_id`.

    `cluster_name` is how the denial names the cluster. `kind` is required: the workload's
    `type` (`Training`, ...), None when it is unknown (then only read on every kind of
    workload allows it), or `ANY_KIND` for the listing check that precedes every by-name
    lookup. There is no default, so a check can't leave the kind out by mistake.
    """

    cluster_id: str
    cluster_name: str
    project: str
    kind: str | AnyKind | None = field(kw_only=True)


def _refusal(reason: Reason, where: str) -> str:
    """What to tell the asker, privately, about a refusal of `where` (plain text, unescaped)."""
    if reason is Reason.UNCHECKED:
        return (
            f"Your read access to {where} could not be checked in Run:ai, so nothing is "
            "shown; try again in a few minutes, or ask your Run:ai administrator if it "
            "keeps failing."
        )
    if reason is Reason.GUEST:
        return (
            "Guest accounts can't see Run:ai workloads through runai-why; "
            "ask your Run:ai administrator."
        )
    if reason is Reason.EXTERNAL:
        return (
            "runai-why answers only members of this workspace's organisation, not people "
            "from other organisations in a shared channel."
        )
    if reason is Reason.NO_EMAIL:
        return (
            "Your chat profile has no confirmed e-mail address, so your Run:ai access "
            "can't be checked; confirm your e-mail address or ask your Run:ai administrator."
        )
    return f"You don't have read access to {where} in Run:ai; ask your Run:ai administrator."


#: How a refusal about a thread's earlier answer names what was refused: never by anything
#: read from the workload (its name, kind or project), which the asker may not have typed.
THREAD_WORKLOAD = "the workload this thread is about"


@dataclass(frozen=True)
class Decision:
    """The answer for one person and one `Target`.

    `readable` holds the resource types Run:ai grants read on in that project (`workloads`
    covers every kind); `failed_call` names the lookup that failed when access is unchecked.
    """

    reason: Reason
    target: Target
    readable: frozenset[str] = field(default_factory=frozenset)
    failed_call: str | None = None

    @property
    def allowed(self) -> bool:
        """Whether anything about the target may be shown to this person."""
        return self.reason in {Reason.ALLOWED, Reason.AUTHZ_OFF}

    def allows_kind(self, workload_type: str | None) -> bool:
        """Whether a workload of this `type` in the target project may be shown.

        An unknown type (None, or one with no kind-specific permission) needs read on
        every kind of workload.
        """
        if self.reason is Reason.AUTHZ_OFF:
            return True
        if not self.allowed:
            return False
        return ALL_KINDS in self.readable or resource_for_kind(workload_type) in self.readable

    def message(self, *, asked_id: str | None = None, thread: bool = False) -> str:
        """What to tell the asker, privately, when `allowed` is False (plain text, unescaped).

        Never names the workload, its kind or anything read from it: only what was asked.
        For a workload asked for by ID (`asked_id`), its project was read from it, so the
        message names only the ID as typed; for a thread's earlier answer (`thread`), the
        asker typed nothing, so it names nothing.
        """
        where = f"workloads in project {self.target.project} on {self.target.cluster_name}"
        if thread:
            where = THREAD_WORKLOAD
        elif asked_id is not None:
            where = f"workload {asked_id}"
        return _refusal(self.reason, where)


@dataclass(frozen=True)
class Reach:
    """Where one person may read workloads at all: on every cluster, on some, or nowhere.

    Decided before the bot names any cluster to them (the "Which cluster?" buttons).
    `clusters` holds cluster ids; `everywhere` is a system or tenant grant (or authorization
    switched off); `failed_call` names the lookup that failed when access is unchecked.
    """

    reason: Reason
    everywhere: bool = False
    clusters: frozenset[str] = field(default_factory=frozenset)
    failed_call: str | None = None

    @property
    def allowed(self) -> bool:
        """Whether they may read workloads on at least one cluster."""
        return self.reason in {Reason.ALLOWED, Reason.AUTHZ_OFF} and (
            self.everywhere or bool(self.clusters)
        )

    def covers(self, cluster_id: str) -> bool:
        """Whether they may read some workloads on this cluster."""
        return self.allowed and (self.everywhere or cluster_id in self.clusters)

    def message(self) -> str:
        """What to tell the asker, privately, when `allowed` is False; names no cluster."""
        return _refusal(self.reason, "workloads on any cluster")
