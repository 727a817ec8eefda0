"""Alertmanager's webhook body (version 4), as far as runai-why reads it, checked on arrival.

Only what names an alert is kept: its status, labels, start and end, and fingerprint.
Unknown members are ignored (newer Alertmanagers add some); a body that is not version 4,
has no alerts list, or holds more than `MAX_ALERTS` alerts is refused as a whole.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["MAX_ALERTS", "Alert", "Webhook"]

#: Alertmanager sends one group per request; its `max_alerts` is usually far below this.
MAX_ALERTS = 1000
_MAX_TEXT = 1024


class Alert(BaseModel):
    """One alert of the group."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    status: Literal["firing", "resolved"]
    labels: dict[str, str] = Field(max_length=200)
    startsAt: str = Field(min_length=1, max_length=64)  # noqa: N815 - the wire name
    endsAt: str | None = Field(default=None, max_length=64)  # noqa: N815 - the wire name
    fingerprint: str = Field(min_length=1, max_length=128)

    def label(self, *names: str) -> str | None:
        """The first of `names` present with a non-empty value (bounded), else None."""
        for name in names:
            value = (self.labels.get(name) or "").strip()
            if value:
                return value[:_MAX_TEXT]
        return None


class Webhook(BaseModel):
    """The request body Alertmanager's webhook receiver posts."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    version: Literal["4"]
    status: Literal["firing", "resolved"]
    receiver: str = ""
    groupKey: str = ""  # noqa: N815 - the wire name
    truncatedAlerts: int = 0  # noqa: N815 - the wire name
    alerts: list[Alert] = Field(max_length=MAX_ALERTS)
