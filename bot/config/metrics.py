"""Metrics: where Prometheus scrapes `GET /metrics`, and the token that opens it on `PORT`."""

from __future__ import annotations

from pydantic import Field, SecretStr

from bot.config.base import Concern, Problem, placeholder_token

__all__ = ["MetricsSettings"]


class MetricsSettings(Concern):
    """`METRICS_PORT` and `METRICS_TOKEN` (`bot.ops.metrics_server`)."""

    port: int = Field(
        default=9464,
        ge=0,
        le=65535,
        validation_alias="metrics_port",
        description=(
            "`METRICS_PORT`, a separate port serving only `GET /metrics`, for in-cluster "
            "scraping (0: none)."
        ),
    )
    token: SecretStr | None = Field(
        default=None,
        validation_alias="metrics_token",
        description=(
            "`METRICS_TOKEN`; when set, `GET /metrics` is also served on `PORT`, to requests "
            "with `Authorization: Bearer <token>`. Without it `PORT` has none."
        ),
    )

    def problems(self) -> list[Problem]:
        """`METRICS_TOKEN` left a placeholder: it would open `/metrics` on `PORT` to anyone."""
        return placeholder_token("METRICS_TOKEN", self.token)
