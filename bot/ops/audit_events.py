"""The audit event: one diagnosis or denial, as identifiers and counts, never evidence text."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Final

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, field_validator

__all__ = [
    "AUTHZ_DENIED_OUTCOME",
    "UPSTREAM_ERROR_OUTCOME",
    "AuditEvent",
    "authz_denial_event",
]

UPSTREAM_ERROR_OUTCOME: Final = "upstream_error"
"""The outcome recorded when a call the diagnosis cannot do without failed (no report)."""

AUTHZ_DENIED_OUTCOME: Final = "authz_denied"
"""The outcome of an authorization denial: nothing was shown (`reason` says why)."""


_FIELD_MAX = 512  # characters kept of one string field (a user may type anything).
_LIST_MAX = 50  # items kept of one list field.
_LISTS = ("failed_calls", "gaps")
_INTS = ("redactions", "duration_ms")
_OPTIONAL = ("cluster_id", "workload", "project", "resolved_id", "category", "reason")


def _cap(text: str) -> str:
    return text if len(text) <= _FIELD_MAX else text[: _FIELD_MAX - 1] + "…"


class AuditEvent(BaseModel):
    """One diagnosis, as recorded for operators: identifiers and counts, never evidence text.

    Attributes:
        platform: the chat platform ("slack", "console", ...).
        team: the workspace/team id.
        channel: the channel id the request came from.
        user: the platform user id of who asked.
        cluster_id: the Run:ai cluster UUID the diagnosis ran against.
        workload: the workload as asked (its id or its name).
        project: the project given, if any.
        resolved_id: the workload id the diagnosis resolved to, if any.
        outcome: the report's outcome, or "upstream_error" when there was no report.
        category: the failure category, if one was assigned.
        redactions: how many sensitive values the report masked.
        duration_ms: wall time of the diagnosis.
        failed_calls: upstream operations that failed (the one that aborted the diagnosis).
        gaps: what the report says was not measured.
        at: when the diagnosis finished (UTC).
        reason: for a denial (outcome `authz_denied`), why (`bot.authz.Reason`).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    platform: str
    team: str
    channel: str
    user: str
    cluster_id: str | None = None
    workload: str | None = None
    project: str | None = None
    resolved_id: str | None = None
    outcome: str
    category: str | None = None
    redactions: int = Field(default=0, ge=0)
    duration_ms: int = Field(default=0, ge=0)
    failed_calls: list[str] = Field(default_factory=list)
    gaps: list[str] = Field(default_factory=list)
    at: AwareDatetime = Field(default_factory=lambda: datetime.now(UTC))
    reason: str | None = None

    @field_validator("platform", "team", "channel", "user", "outcome", *_OPTIONAL, mode="after")
    @classmethod
    def _capped(cls, value: str | None) -> str | None:
        return None if value is None else _cap(value)

    @field_validator(*_LISTS, mode="after")
    @classmethod
    def _capped_list(cls, value: list[str]) -> list[str]:
        return [_cap(item) for item in value[:_LIST_MAX]]

    @field_validator("at", mode="after")
    @classmethod
    def _utc(cls, value: datetime) -> datetime:
        return value.astimezone(UTC)

    def log_fields(self) -> dict[str, Any]:
        """The fields as a structlog event carries them (`at` as ISO 8601)."""
        fields = self.model_dump()
        fields["at"] = self.at.isoformat()
        return fields

    def stream_fields(self) -> dict[str, str]:
        """Flat string fields for `XADD`: lists as JSON, None as "", numbers as text."""
        flat: dict[str, str] = {}
        for name, value in self.model_dump().items():
            if name in _LISTS:
                flat[name] = json.dumps(value, ensure_ascii=False)
            elif name == "at":
                flat[name] = self.at.isoformat()
            else:
                flat[name] = "" if value is None else str(value)
        return flat

    @classmethod
    def from_stream(cls, fields: Mapping[str, str]) -> AuditEvent:
        """The event a `stream_fields` mapping was made from.

        Raises:
            ValueError: a field is missing or malformed.
        """
        data: dict[str, Any] = dict(fields)
        for name in _LISTS:
            data[name] = json.loads(fields.get(name) or "[]")
        for name in _OPTIONAL:
            data[name] = fields.get(name) or None
        for name in _INTS:
            data[name] = int(fields.get(name) or 0)
        return cls.model_validate(data)


def authz_denial_event(
    *,
    platform: str,
    team: str,
    channel: str,
    user: str,
    cluster_id: str,
    project: str,
    reason: str,
    workload: str | None = None,
    at: datetime | None = None,
) -> AuditEvent:
    """The audit event of one authorization denial (user, project, cluster, reason).

    `workload` is the workload as the asker gave it (name or id), never anything read.
    """
    return AuditEvent(
        platform=platform,
        team=team,
        channel=channel,
        user=user,
        cluster_id=cluster_id,
        workload=workload,
        project=project,
        outcome=AUTHZ_DENIED_OUTCOME,
        reason=reason,
        at=at or datetime.now(UTC),
    )
