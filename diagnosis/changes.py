"""What changed since the last good run: the failed spec against the last one that worked.

"What changed?" is the question every engineer asks next. When the same workload name in
the same project has an earlier submission within the lookback that succeeded (Completed or
Succeeded) or ran longer than this one, and the asker may read it, the two submitted specs
are compared on what usually breaks a rerun: the image (tag or digest), the command and
its arguments (redacted), the CPU-memory request and limit, the GPU count, fraction and
memory, the node pools, the names of the environment variables (never their values) and
the data sources. `compare` is pure; `earlier_good_run` picks the submission to compare with.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from diagnosis.quantity import parse_quantity
from diagnosis.redact import quote
from diagnosis.report_parts import Change
from diagnosis.runai.models import SpecSpec, Workload, WorkloadSpec

__all__ = ["GOOD_PHASES", "compare", "earlier_good_runs"]

#: Phases of a run that worked.
GOOD_PHASES = frozenset({"completed", "succeeded"})
_SHOWN = 120  # characters of a command or a value shown


def earlier_good_runs(
    failed: Workload, submissions: Sequence[Workload], *, cutoff: datetime
) -> list[Workload]:
    """The earlier submissions of the same name worth comparing with, newest first.

    Submitted before the failed one, last changed within the lookback (at or after
    `cutoff`), and either successful or longer-running than the failed one.
    """
    ran = failed.total_running_time_seconds
    found: list[tuple[datetime, Workload]] = []
    for other in submissions:
        changed = other.phase_updated_at
        if other.id == failed.id or changed is None or changed < cutoff:
            continue
        if failed.created_at and other.created_at and other.created_at >= failed.created_at:
            continue  # a later submission is not "the last good run" before this failure
        longer = ran is not None and (other.total_running_time_seconds or 0) > ran
        if (other.phase or "").lower() in GOOD_PHASES or longer:
            found.append((changed, other))
    return [w for _, w in sorted(found, key=lambda pair: pair[0], reverse=True)]


def _text(value: str | None) -> str | None:
    return quote(value, _SHOWN) if value else None


def _number(value: float | None) -> str | None:
    return None if value is None else f"{value:g}"


def _same_quantity(a: str | None, b: str | None) -> bool:
    return a == b or (a is not None and b is not None and parse_quantity(a) == parse_quantity(b))


def _values(spec: SpecSpec | None, workload: Workload) -> dict[str, str | None]:
    compute = spec.compute if spec else None
    return {
        "image": _text((spec.image if spec else None) or next(iter(workload.images), None)),
        "command": _text((spec.command if spec else None) or workload.command),
        "arguments": _text((spec.args if spec else None) or workload.arguments),
        "CPU-memory request": compute.cpu_memory_request if compute else None,
        "CPU-memory limit": compute.cpu_memory_limit if compute else None,
        "GPU count": _number(compute.gpu_devices_request if compute else None),
        "GPU fraction": _number(compute.gpu_portion_request if compute else None),
        "GPU memory": compute.gpu_memory_request if compute else None,
        "node pools": _text(", ".join(spec.node_pools) if spec else None),
    }


def _names(spec: SpecSpec | None) -> dict[str, set[str]]:
    storage = spec.storage if spec else None
    return {
        "environment variables": {
            e.name for e in (spec.environment_variables if spec else ()) if e.name
        },
        "data sources": set(storage.sources if storage else ()),
    }


def _set_change(what: str, before: set[str], after: set[str]) -> Change | None:
    removed, added = sorted(before - after), sorted(after - before)
    if not removed and not added:
        return None
    return Change(
        what=what,
        before=quote(", ".join(removed), _SHOWN) if removed else None,
        after=quote(", ".join(added), _SHOWN) if added else None,
        kind="set",
    )


def compare(
    good: WorkloadSpec | None,
    good_workload: Workload,
    failed: WorkloadSpec | None,
    workload: Workload,
) -> list[Change]:
    """What differs from the good run to the failed one, in a fixed order; values redacted."""
    before = _values(good.spec if good else None, good_workload)
    after = _values(failed.spec if failed else None, workload)
    changes = []
    for what, old in before.items():
        new = after[what]
        if what.startswith("CPU-memory") and _same_quantity(old, new):
            continue
        if old != new:
            changes.append(Change(what=what, before=old, after=new))
    names_before = _names(good.spec if good else None)
    names_after = _names(failed.spec if failed else None)
    for what, old_names in names_before.items():
        if (change := _set_change(what, old_names, names_after[what])) is not None:
            changes.append(change)
    return changes
