"""Authorization: who may ask about which project, decided by each asker's Run:ai access."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from bot.config.base import Concern

__all__ = ["AuthzSettings"]


class AuthzSettings(Concern):
    """`AUTHZ_*` and `CHANNEL_PROJECTS` (`bot.authz`)."""

    mode: Literal["runai", "off"] = Field(
        default="runai",
        validation_alias="authz_mode",
        description=(
            "`AUTHZ_MODE`, `runai` (each asker sees what their Run:ai access allows) or `off` "
            "(an explicit opt-out, logged at start-up)."
        ),
    )
    cache_ttl_s: int = Field(
        default=60,
        ge=0,
        le=3600,
        validation_alias="authz_cache_ttl_s",
        description="`AUTHZ_CACHE_TTL_S`, how long one person's decision is reused.",
    )
    allow_guests: bool = Field(
        default=False,
        validation_alias="authz_allow_guests",
        description="`AUTHZ_ALLOW_GUESTS`, let guest accounts ask (default no).",
    )
    allow_external: bool = Field(
        default=False,
        validation_alias="authz_allow_external",
        description="`AUTHZ_ALLOW_EXTERNAL`, let Slack Connect users ask (default no).",
    )
    channel_projects: dict[str, list[str]] = Field(
        default_factory=dict,
        validation_alias="channel_projects",
        description=(
            '`CHANNEL_PROJECTS`, JSON `{"C0123": ["nlp", "vision"]}`: the projects a channel '
            "may discuss publicly; answers about others go to the asker privately."
        ),
    )
