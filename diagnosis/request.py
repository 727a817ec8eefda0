"""What the caller asks the engine to diagnose: identifiers, lookback and intent.

Missing identifiers are not an error here (the pipeline answers `needs_input`); malformed
ones are (`InvalidRequest`), because a typo'd UUID must never be silently ignored. A lookback
is rounded up to the next of `LOOKBACK_STEPS`: asks that differ by minutes share one diagnosis
(the report's key holds the lookback) rather than each costing its own Run:ai calls, and the
answer names the lookback it used (`lookback_label`).
"""

from __future__ import annotations

import re
import uuid
from datetime import timedelta
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, field_validator

from diagnosis.errors import InvalidRequest

__all__ = [
    "DEFAULT_LOOKBACK",
    "LOOKBACK_STEPS",
    "DiagnosisRequest",
    "Symptom",
    "parse_lookback",
    "rounded_lookback",
    "valid_name",
]

DEFAULT_LOOKBACK = timedelta(hours=24)
MAX_LOOKBACK = timedelta(days=30)
_LOOKBACK_RE = re.compile(r"^\s*(\d+)\s*([smhdw])\s*$", re.IGNORECASE)
_DAY = 86400
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
_NAME_RE = re.compile(r"[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?")  # whole: `$` admits a "\n"
_HOUR = 3600
#: The lookbacks a diagnosis uses, each at most about twice the one before: 15m to 30d.
LOOKBACK_STEPS = tuple(
    timedelta(seconds=seconds)
    for seconds in (
        900,
        1800,
        _HOUR,
        2 * _HOUR,
        3 * _HOUR,
        6 * _HOUR,
        12 * _HOUR,
        _DAY,
        2 * _DAY,
        3 * _DAY,
        7 * _DAY,
        14 * _DAY,
        30 * _DAY,
    )
)


def rounded_lookback(value: timedelta) -> timedelta:
    """The lookback a diagnosis uses for `value` (at most 30d): the first step not shorter.

    Rounded up, never down: recurrence is never counted over less than was asked.
    """
    return next((step for step in LOOKBACK_STEPS if step >= value), MAX_LOOKBACK)


class Symptom(StrEnum):
    """A current-symptom intent; `None` on a request means "a past or terminal failure".

    `PENDING` asks why a workload is not running yet (stuck, queued, still waiting).
    """

    CRASHLOOP = "crashloop"
    IMAGE_PULL = "image-pull"
    INIT = "init"
    MOUNT = "mount"
    STARTUP = "startup"
    FAILED_POD = "failed-pod"
    PENDING = "pending"


def parse_lookback(text: str) -> timedelta:
    """Parse `90m`, `24h`, `7d`, `2w` (one number and one unit) into a timedelta.

    Raises:
        InvalidRequest: on any other form, zero, or more than 30 days.
    """
    match = _LOOKBACK_RE.match(text)
    if not match:
        raise InvalidRequest(
            f"lookback {text!r} is not a duration; use a number and a unit, e.g. 24h, 90m, 7d"
        )
    value = timedelta(seconds=int(match.group(1)) * _UNIT_SECONDS[match.group(2).lower()])
    if value <= timedelta(0) or value > MAX_LOOKBACK:
        raise InvalidRequest(f"lookback {text!r} must be more than 0 and at most 30d")
    return value


def valid_name(text: str) -> bool:
    """Whether `text` is a Run:ai name (a workload's or a project's), as an asked name must be.

    Whatever is sent to the API inside a filter (`filterBy=name==…`) is one, so a value
    cannot add a term of its own.
    """
    return _NAME_RE.fullmatch(text) is not None


def _check_uuid(value: str | None, what: str) -> str | None:
    if value is None or not value.strip():
        return None
    try:
        return str(uuid.UUID(value.strip()))
    except ValueError:
        raise InvalidRequest(
            f"{what} {value!r} is not a UUID (Run:ai {what}s look like "
            "3f1c2a9e-5b7d-4c1e-9a2f-8d6b0e4c7a11)"
        ) from None


class DiagnosisRequest(BaseModel):
    """One diagnosis question.

    Attributes:
        cluster_id: Run:ai cluster UUID; always required, never inferred.
        workload_id: Option A, the workload UUID.
        workload_name: Option B, with `project`.
        project: Option B, the Run:ai project name.
        lookback: history window for evidence and recurrence (default 24h), rounded up to
            one of `LOOKBACK_STEPS` (`rounded_lookback`).
        symptom: a current-symptom intent, or None for a past/terminal failure.
    """

    model_config = ConfigDict(frozen=True)

    cluster_id: str | None = None
    workload_id: str | None = None
    workload_name: str | None = None
    project: str | None = None
    lookback: timedelta = DEFAULT_LOOKBACK
    symptom: Symptom | None = None

    @field_validator("cluster_id")
    @classmethod
    def _cluster_uuid(cls, value: str | None) -> str | None:
        return _check_uuid(value, "cluster ID")

    @field_validator("workload_id")
    @classmethod
    def _workload_uuid(cls, value: str | None) -> str | None:
        return _check_uuid(value, "workload ID")

    @field_validator("workload_name", "project")
    @classmethod
    def _k8s_name(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        value = value.strip()
        if not valid_name(value):
            raise InvalidRequest(
                f"{value!r} is not a valid Run:ai name (lower-case letters, digits, '-' and '.')"
            )
        return value

    @field_validator("lookback")
    @classmethod
    def _lookback_range(cls, value: timedelta) -> timedelta:
        if value <= timedelta(0) or value > MAX_LOOKBACK:
            raise InvalidRequest("lookback must be more than 0 and at most 30d")
        return rounded_lookback(value)

    def missing(self) -> list[str]:
        """Name exactly what is missing before the engine may call any tool."""
        gaps: list[str] = []
        if self.cluster_id is None:
            gaps.append("cluster_id")
        if self.workload_id is None:
            if self.workload_name is None:
                gaps.append("workload_id or workload_name")
            if self.workload_name is not None and self.project is None:
                gaps.append("project")
        return gaps

    def lookback_label(self) -> str:
        """The lookback used, as a user would write it (`24h`, `7d`): what the answer names."""
        seconds = int(self.lookback.total_seconds())
        if seconds % _DAY == 0 and seconds > _DAY:
            return f"{seconds // _DAY}d"
        for unit, size in (("h", 3600), ("m", 60)):
            if seconds % size == 0:
                return f"{seconds // size}{unit}"
        return f"{seconds}s"
