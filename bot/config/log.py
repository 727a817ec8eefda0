"""Logging: how much the process says, and in which form."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from bot.config.base import Concern

__all__ = ["LogSettings"]


class LogSettings(Concern):
    """`LOG_LEVEL` and `LOG_FORMAT` (`bot.ops.logging`)."""

    level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = Field(
        default="INFO", validation_alias="log_level", description="`LOG_LEVEL`."
    )
    format: Literal["json", "console"] = Field(
        default="json",
        validation_alias="log_format",
        description="`LOG_FORMAT`, `json` for deployments, `console` for people.",
    )
