"""The engine's rulings at a front end's edges: who may click, which replies it takes, what is said.

Slack and Teams ask these and only translate: their payloads into an `Incoming`, the answers
into their own private messages. Before a queued request runs, `admit` decides whether the
engine takes it: a click on a question counts only from the person who asked (the answer's
own buttons are anyone's), and a plain reply only continues a conversation the engine
knows (in one it lost, where the bot took part, the replier is told so, once).
`converse` runs the turn and tells the asker privately, once and truthfully, when it fails;
`taken_notice` and `not_taken_notice` say what the asker hears about the work queue.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Protocol

import structlog

from bot.conversation.engine import ConversationEngine, Responder
from bot.conversation.messages import (
    BUSY,
    CRASHED,
    LOST_CONTEXT,
    QUEUE_FULL,
    STATE_NOT_SAVED,
    STORE_BUSY,
    STORE_BUSY_RETRYING,
    STORE_DOWN,
    STORE_RETRYING,
    capped,
    describe_upstream,
    only_asker,
    queued,
)
from bot.conversation.model import RERUN, SHOW_EVIDENCE, Incoming, report_action
from bot.conversation.store import StoreBusy, StoreUnavailable, ThreadBusy
from bot.durable.connect import redis_failure
from diagnosis import UpstreamError

__all__ = [
    "ANYONES_CHOICES",
    "Asker",
    "Ruling",
    "Taken",
    "admit",
    "anyones",
    "converse",
    "failure_notice",
    "not_taken_notice",
    "store_busy",
    "taken_notice",
]

#: The answer's buttons: they show everyone what the thread shows, so anyone may press them.
ANYONES_CHOICES = frozenset({SHOW_EVIDENCE, RERUN})


def anyones(choice: str | None) -> bool:
    """Whether `choice` is one of the answer's buttons anyone may press (with its target)."""
    return choice is not None and report_action(choice)[0] in ANYONES_CHOICES


class Asker(Responder, Protocol):
    """A front end's responder, with its private line to the person a request came from."""

    @property
    def public(self) -> bool:
        """Whether anything was posted publicly for this request (by any attempt)."""
        ...

    async def tell(self, text: str) -> None:
        """Show `text` to the asker only; never raises."""
        ...


class Taken(Protocol):
    """The work queue's answer to an offered request (`bot.work.Enqueued`)."""

    @property
    def intake(self) -> str:
        """What the queue did with it: "accepted", "duplicate", "full" or "capped"."""
        ...

    @property
    def ahead(self) -> int:
        """Accepted: the requests waiting in front of it."""
        ...

    @property
    def held(self) -> int:
        """Capped: the asker's own requests waiting or being answered."""
        ...


@dataclass(frozen=True)
class Ruling:
    """What becomes of a request: the engine's turn (`incoming`), or only a private `notice`.

    `mentions`: the notice was written by the bot alone and names a person in the
    platform's own mention syntax (from the caller's `mention`), to be shown as a mention.
    `done`: False when nothing was done and the notice tells its sender to ask again.
    """

    incoming: Incoming | None = None
    notice: str | None = None
    mentions: bool = False
    done: bool = True


async def admit(
    engine: ConversationEngine,
    incoming: Incoming,
    *,
    mention: Callable[[str], str],
    shown: bool,
    told_once_s: int,
) -> Ruling:
    """Whether the engine takes `incoming` now, or what its sender is told instead.

    `mention` names the asker in "only … can pick"; `shown` says whether the request has
    posted publicly already (a store failure is then told as "not saved"); `told_once_s`
    is how long a replier in a lost thread is not told again.
    """
    try:
        if incoming.choice is not None and not anyones(incoming.choice):
            return await _may_pick(engine, incoming, mention)
        if not incoming.directed:
            return await _continues(engine, incoming, told_once_s)
    except StoreUnavailable as error:
        notice = failure_notice(error, shown=shown)
        return Ruling(notice=notice, done=not asks_again(error, shown=shown))
    return Ruling(incoming)


async def _may_pick(
    engine: ConversationEngine, incoming: Incoming, mention: Callable[[str], str]
) -> Ruling:
    """Only the person who asked can pick; anyone else is told so, privately."""
    asker = await engine.asker(incoming.key)
    if asker is None:
        return Ruling(notice=LOST_CONTEXT)
    if asker != incoming.user:
        return Ruling(notice=only_asker(mention(asker)), mentions=True)
    return Ruling(incoming)


async def _continues(engine: ConversationEngine, incoming: Incoming, told_once_s: int) -> Ruling:
    """A plain reply continues a known conversation; in a lost one the replier is told, once."""
    key = incoming.key
    try:  # a turn still running there may not have saved the thread yet
        known = await engine.settled(key) is not None
    except ThreadBusy:
        known = True  # a turn still holds the thread: the engine answers "busy"
    if known:
        return Ruling(replace(incoming, bot_thread=False))  # lost is told here, not again
    if incoming.bot_thread:
        claim = f"lost:{key.redis_key('conv')}:{incoming.user}"
        if await engine.store.claim(claim, told_once_s):
            structlog.get_logger(__name__).info(
                "thread_context_lost", platform=key.platform, thread=key.thread
            )
            return Ruling(notice=LOST_CONTEXT)
    return Ruling()  # people talking in a thread that is not the bot's


async def converse(
    engine: ConversationEngine, incoming: Incoming, asker: Asker, *, shown: Responder | None = None
) -> bool:
    """Run one turn; any failure is logged and told to the asker privately, once.

    `shown` is what the engine answers through (the worker's journaled wrapper of `asker`);
    `asker` tells the asker about failures. Returns False when nothing was done and the
    asker was told to ask again (`asks_again`).
    """
    log = structlog.get_logger(__name__).bind(platform=incoming.key.platform)
    try:
        await engine.handle(incoming, shown or asker)
    except Exception as error:
        if isinstance(error, StoreUnavailable):
            log.warning("turn_store_unavailable", error=str(error), answered=asker.public)
        elif isinstance(error, UpstreamError):
            log.warning("turn_upstream_failed", operation=error.operation, status=error.status)
        else:
            log.exception("turn_failed")
        notice = failure_notice(error, shown=asker.public)
        if notice is not None:
            await asker.tell(notice)
        return not asks_again(error, shown=asker.public)
    return True


def asks_again(error: Exception, *, shown: bool) -> bool:
    """Whether the turn that failed with `error` did nothing and its asker is told to ask again.

    Their thread was busy, or the state store failed, before anything was shown for it.
    """
    return not shown and isinstance(error, StoreUnavailable)  # `ThreadBusy` is one


def failure_notice(error: Exception, *, shown: bool) -> str | None:
    """What the asker is told when a turn failed with `error`; None: nothing.

    Once something was posted for the request (`shown`), "I did not process this request"
    would be false: a store failure is then "not saved", and any other failure was already
    said where the progress notice stood (the engine replaced it).
    """
    if isinstance(error, ThreadBusy):
        return BUSY
    if isinstance(error, StoreUnavailable):
        if shown:
            return STATE_NOT_SAVED
        return STORE_BUSY if isinstance(error, StoreBusy) else STORE_DOWN
    if shown:
        return None
    if isinstance(error, UpstreamError):
        return describe_upstream(error, "answer")
    return CRASHED


def store_busy(error: Exception) -> bool:
    """Whether a store failure was a full connection pool, not Redis being unreachable."""
    return isinstance(error, StoreBusy) or redis_failure(error.__cause__ or error) == "busy"


def not_taken_notice(error: Exception, *, retrying: bool = False) -> str:
    """What the asker is told when the queue could not take their request.

    `retrying`: the platform will deliver it again (a Slack event), so it will be taken then.
    """
    if retrying:
        return STORE_BUSY_RETRYING if store_busy(error) else STORE_RETRYING
    return STORE_BUSY if store_busy(error) else STORE_DOWN


def taken_notice(taken: Taken) -> str | None:
    """What the asker is told when the queue answered: full, over their own cap, or their place.

    None: nothing (taken at once, or a duplicate). Only the asker over their cap is refused
    for it: everyone else's requests are taken as before.
    """
    if taken.intake == "full":
        return QUEUE_FULL
    if taken.intake == "capped":
        return capped(taken.held)
    if taken.intake == "accepted" and taken.ahead:
        return queued(taken.ahead)
    return None  # taken at once, or a duplicate of one taken already
