"""The HTTP edge of `runai-why serve`: its port and how long and how many clients it waits for."""

from __future__ import annotations

from pydantic import Field

from bot.config.base import Concern

__all__ = ["HttpSettings"]


class HttpSettings(Concern):
    """`PORT` and `HTTP_*`: the listener of `runai-why serve` (`bot.app.http_limits`)."""

    port: int = Field(
        default=3000,
        ge=1,
        le=65535,
        validation_alias="port",
        description="`PORT`, the HTTP port of `runai-why serve`.",
    )
    header_timeout_s: float = Field(
        default=10.0,
        gt=0,
        le=300,
        validation_alias="http_header_timeout_s",
        description=(
            "`HTTP_HEADER_TIMEOUT_S`, how long `serve` waits for a request's head (from the "
            "connection, or the previous response) before closing."
        ),
    )
    body_timeout_s: float = Field(
        default=20.0,
        gt=0,
        le=600,
        validation_alias="http_body_timeout_s",
        description="`HTTP_BODY_TIMEOUT_S`, how long it waits for a request's body after its head.",
    )
    max_connections: int = Field(
        default=1024,
        ge=1,
        le=100_000,
        validation_alias="http_max_connections",
        description=(
            "`HTTP_MAX_CONNECTIONS`, connections `serve` holds at once; past it, a new "
            "connection is closed at once."
        ),
    )
