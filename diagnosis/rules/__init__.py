"""The rule registry and `classify`: one pure rule per category, strongest direct signal wins.

A rule looks at the collected `Evidence` and returns a `Finding` or None; rules never do
I/O. When several rules fire, the failure that happened last is the one being asked about;
rules whose decisive signals fall within `SAME_TERMINATION` of it describe the same
termination, and among those the registry order below decides.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from diagnosis.evidence import Evidence
from diagnosis.report import Category
from diagnosis.rules.base import Finding, Rule
from diagnosis.rules.crash import crash_app_error
from diagnosis.rules.image_pull import image_pull_failed
from diagnosis.rules.init import init_failed
from diagnosis.rules.mount import datasource_mount_failed
from diagnosis.rules.node import node_failure
from diagnosis.rules.oom import oom_killed
from diagnosis.rules.policy import scheduling_policy_terminated
from diagnosis.rules.unknown import unknown

__all__ = ["RULES", "SAME_TERMINATION", "Finding", "classify"]

#: Priority order when two rules describe the same termination (first wins).
RULES: tuple[tuple[Category, Rule], ...] = (
    (Category.SCHEDULING_POLICY_TERMINATED, scheduling_policy_terminated),
    (Category.OOM_KILLED, oom_killed),
    (Category.IMAGE_PULL_FAILED, image_pull_failed),
    (Category.INIT_FAILED, init_failed),
    (Category.DATASOURCE_MOUNT_FAILED, datasource_mount_failed),
    (Category.NODE_FAILURE, node_failure),
    (Category.CRASH_APP_ERROR, crash_app_error),
)

SAME_TERMINATION = timedelta(minutes=10)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def classify(ev: Evidence) -> Finding:
    """Run every rule and pick the verdict; `UNKNOWN` when none fires."""
    findings = [f for _, rule in RULES if (f := rule(ev)) is not None]
    if not findings:
        return unknown(ev)
    newest = max(f.at or _EPOCH for f in findings)
    for finding in findings:  # in registry order
        if newest - (finding.at or _EPOCH) <= SAME_TERMINATION:
            return finding
    raise AssertionError("unreachable: the newest finding is within its own window")
