"""What an authorization check is about (`Target`) and what it found (`Decision`, `Reason`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

__all__ = ["ALL_KINDS", "READ_RESOURCES", "Decision", "Reason", "Target", "resource_for_kind"]

ALL_KINDS = "workloads"
"""The resource type whose `read` covers every kind of workload."""

READ_RESOURCES = frozenset({ALL_KINDS, "trainings", "workspaces", "inferences"})
"""Resource types a role may grant `read` on that let a person see (some) workloads."""

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


@dataclass(frozen=True)
class Target:
    """What is asked: workloads of project `project` (name) on cluster `cluster_id`.

    `cluster_name` is how the denial names the cluster. `kind` is the workload's `type` when
    it is known (by ID, after fetching it); None asks "may they read any workloads there?".
    """

    cluster_id: str
    cluster_name: str
    project: str
    kind: str | None = None


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
        """Whether a workload of this `type` in the target project may be shown (candidates)."""
        if self.reason is Reason.AUTHZ_OFF:
            return True
        if not self.allowed:
            return False
        return ALL_KINDS in self.readable or resource_for_kind(workload_type) in self.readable

    def message(self, *, asked_id: str | None = None) -> str:
        """What to tell the asker, privately, when `allowed` is False (plain text, unescaped).

        Never names the workload, its kind or anything read from it: only what was asked.
        For a workload asked for by ID (`asked_id`), its project was read from it, so the
        message names only the ID as typed.
        """
        where = f"workloads in project {self.target.project} on {self.target.cluster_name}"
        if asked_id is not None:
            where = f"workload {asked_id}"
        if self.reason is Reason.UNCHECKED:
            return (
                f"Your read access to {where} could not be checked in Run:ai, so nothing is "
                "shown; try again in a few minutes, or ask your Run:ai administrator if it "
                "keeps failing."
            )
        if self.reason is Reason.GUEST:
            return (
                "Guest accounts can't see Run:ai workloads through runai-why; "
                "ask your Run:ai administrator."
            )
        if self.reason is Reason.EXTERNAL:
            return (
                "runai-why answers only members of this workspace's organisation, not people "
                "from other organisations in a shared channel."
            )
        if self.reason is Reason.NO_EMAIL:
            return (
                "Your chat profile has no confirmed e-mail address, so your Run:ai access "
                "can't be checked; confirm your e-mail address or ask your Run:ai administrator."
            )
        return f"You don't have read access to {where} in Run:ai; ask your Run:ai administrator."
