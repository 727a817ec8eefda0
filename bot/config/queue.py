"""The durable work queue: bounded, with deadlines, reclaimed after a crash, drained on stop."""

from __future__ import annotations

from pydantic import Field

from bot.config.base import DEDUPE_TTL_S, Concern

__all__ = ["QueueSettings"]


class QueueSettings(Concern):
    """`QUEUE_*`, `SHUTDOWN_GRACE_S` and `EMBEDDED_WORKER` (`bot.work`)."""

    max_items: int = Field(
        default=1000,
        ge=1,
        le=1_000_000,
        validation_alias="queue_max_items",
        description=(
            "`QUEUE_MAX_ITEMS`, requests the queue holds (waiting or being answered, across "
            "replicas); past it, an asker is told at once to ask again."
        ),
    )
    deadline_s: float = Field(
        default=300.0,
        gt=0,
        lt=DEDUPE_TTL_S,
        validation_alias="queue_deadline_s",
        description=(
            "`QUEUE_DEADLINE_S`, how long a request may wait to be started; past it, it is "
            "dropped and its asker told. Shorter than the hour a taken event is remembered."
        ),
    )
    claim_idle_s: float = Field(
        default=30.0,
        gt=0,
        le=3600,
        validation_alias="queue_claim_idle_s",
        description=(
            "`QUEUE_CLAIM_IDLE_S`, how long a worker may go silent before its requests are "
            "taken over by another (a living worker renews its claim, also while it stops; "
            "one that cannot renew it that long stops answering them)."
        ),
    )
    max_deliveries: int = Field(
        default=3,
        ge=1,
        le=20,
        validation_alias="queue_max_deliveries",
        description=(
            "`QUEUE_MAX_DELIVERIES`, attempts at one request before it goes to the "
            "dead-letter stream and its asker is told."
        ),
    )
    shutdown_grace_s: float = Field(
        default=20.0,
        ge=0,
        le=600,
        validation_alias="shutdown_grace_s",
        description=(
            "`SHUTDOWN_GRACE_S`, how long a stopping process (SIGTERM) lets the requests it "
            "is answering finish before it hands the rest back (it keeps them meanwhile)."
        ),
    )
    embedded_worker: bool = Field(
        default=True,
        validation_alias="embedded_worker",
        description=(
            "`EMBEDDED_WORKER`, whether `runai-why serve` also answers requests (default yes; "
            "turn it off when `runai-why worker` processes do)."
        ),
    )
