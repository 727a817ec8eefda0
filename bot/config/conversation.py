"""Conversations: how long a thread is remembered, and the cluster a channel talks about."""

from __future__ import annotations

from pydantic import Field

from bot.config.base import Concern

__all__ = ["ConversationSettings"]


class ConversationSettings(Concern):
    """`STATE_TTL_S` and `CHANNEL_DEFAULT_CLUSTERS` (`bot.conversation`)."""

    state_ttl_s: int = Field(
        default=86400,
        ge=60,
        le=7 * 86400,
        validation_alias="state_ttl_s",
        description="`STATE_TTL_S`, how long a thread's conversation is remembered.",
    )
    default_clusters: dict[str, str] = Field(
        default_factory=dict,
        validation_alias="channel_default_clusters",
        description=(
            '`CHANNEL_DEFAULT_CLUSTERS`, JSON `{"C0123": "prod-a"}`: a channel\'s default '
            "cluster (name or UUID), stated in every reply that uses it."
        ),
    )
