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
            "`QUEUE_MAX_ITEMS`, people's requests the queue holds (waiting or being answered, "
            "across replicas); past it, an asker is told at once to ask again. Pushed items "
            "have a bound of their own (`QUEUE_MAX_PUSH_ITEMS`)."
        ),
    )
    max_push_items: int = Field(
        default=200,
        ge=1,
        le=1_000_000,
        validation_alias="queue_max_push_items",
        description=(
            "`QUEUE_MAX_PUSH_ITEMS`, pushed items (watches' failures, alerts) the queue holds, "
            "apart from people's requests: an alert storm never refuses a person's request, "
            "nor a burst of requests an alert. Past it, Alertmanager is answered 503 and sends "
            "again, and a watch's poll queues the rest at its next poll."
        ),
    )
    max_per_asker: int = Field(
        default=10,
        ge=1,
        le=1_000_000,
        validation_alias="queue_max_per_asker",
        description=(
            "`QUEUE_MAX_PER_ASKER`, one person's requests the queue holds at once (waiting or "
            "being answered); past it, that person alone is told privately to ask again once "
            "one is answered."
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
