"""The push side: answers nobody asked for, from Alertmanager alerts and watched projects."""

from __future__ import annotations

from pydantic import Field, SecretStr

from bot.config.base import Concern, Problem, placeholder_token

__all__ = ["PushSettings"]


class PushSettings(Concern):
    """`ALERT*`, `WATCH*` and `PUSH_*` (`bot.alerts`, `bot.watch`, `bot.push`)."""

    alertmanager_token: SecretStr | None = Field(
        default=None,
        validation_alias="alertmanager_token",
        description=(
            "`ALERTMANAGER_TOKEN`, the bearer token Alertmanager sends to "
            "`POST /alerts/alertmanager`; unset, that route is not served."
        ),
    )
    alert_cluster: str | None = Field(
        default=None,
        validation_alias="alert_cluster",
        description=(
            "`ALERT_CLUSTER`, the cluster (name or ID) of alerts without a `cluster` label, "
            "for a single-cluster install."
        ),
    )
    alert_channels: dict[str, str] = Field(
        default_factory=dict,
        validation_alias="alert_channels",
        description=(
            '`ALERT_CHANNELS`, JSON `{"<cluster name or ID>/<project>": "<channel ID>"}`: '
            "where alerts about a project are answered."
        ),
    )
    alert_max_per_group: int = Field(
        default=20,
        ge=1,
        le=1000,
        validation_alias="alert_max_per_group",
        description=(
            "`ALERT_MAX_PER_GROUP`, firing alerts one webhook request (one Alertmanager group) "
            "may queue; those about one workload count once, resolved ones not at all. The "
            "rest are `excess`, answered 503, and taken when Alertmanager retries the group."
        ),
    )
    watches: list[dict[str, str | bool]] = Field(
        default_factory=list,
        validation_alias="watches",
        description=(
            '`WATCHES`, JSON list of `{"channel", "project", "cluster"}` (optionally '
            '`"preemptions": true`): watches declared by the install (GitOps).'
        ),
    )
    watch_interval_s: float = Field(
        default=60.0,
        ge=1,
        le=3600,
        validation_alias="watch_interval_s",
        description="`WATCH_INTERVAL_S`, how often watched projects are polled.",
    )
    watch_storm_threshold: int = Field(
        default=5,
        ge=1,
        le=1000,
        validation_alias="watch_storm_threshold",
        description=(
            "`WATCH_STORM_THRESHOLD`, more new failures than this in one poll of one project "
            "are posted as one summary with the answers in its thread."
        ),
    )
    group_window_s: float = Field(
        default=6 * 3600.0,
        ge=60,
        le=7 * 86400,
        validation_alias="push_group_window_s",
        description=(
            "`PUSH_GROUP_WINDOW_S`, how long the same failure keeps going into the same thread."
        ),
    )
    max_posts_per_h: int = Field(
        default=20,
        ge=1,
        le=10_000,
        validation_alias="push_max_posts_per_h",
        description=(
            "`PUSH_MAX_POSTS_PER_H`, new pushed messages per channel per hour; past it, that "
            "hour's answers go into one thread."
        ),
    )

    def problems(self) -> list[Problem]:
        """`ALERTMANAGER_TOKEN` left a placeholder: the route would be off, without a word."""
        return placeholder_token("ALERTMANAGER_TOKEN", self.alertmanager_token)
