"""From a verified Teams activity to a durable work item, taken before Teams gets its answer.

`submit` describes the activity as a `WorkItem` (platform "teams": the activity's facts and
where to answer, as JSON in `TeamsSpec`) and enqueues it with its dedupe key, in the queue's
one atomic step (claim + bound + append). The dedupe key is what makes a Teams retry or a
duplicate delivery, on any replica, one answer (`dedupe_key`): the activity ID, remembered for
as long as a token carrying it is accepted (`TeamsSettings.replay_window_s`, so a captured
request replayed later is a duplicate too); for a click on a question, the card, the choice and
the person who clicked, so a double click is one while a teammate's click cannot use up the
asker's.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from bot.conversation import Incoming, Markup
from bot.conversation.edges import anyones
from bot.teams.activity import Inbound
from bot.teams.responder import ReplyTarget
from bot.teams.turns import thread_key
from bot.work import Enqueued, WorkQueue, admit, new_item

__all__ = ["PLATFORM", "TeamsSpec", "dedupe_key", "submit"]

PLATFORM = "teams"


class TeamsSpec(BaseModel):
    """A Teams item's `responder`: the activity's facts, and where and to whom to answer."""

    model_config = ConfigDict(frozen=True)

    inbound: Inbound
    target: ReplyTarget


def dedupe_key(inbound: Inbound) -> str:
    """The key under which the queue takes this activity once (for `replay_window_s`)."""
    if _a_pick(inbound):
        key = thread_key(inbound).redis_key("q")
        return f"teams:click:{key}:{inbound.card_id}:{inbound.choice}:{inbound.user_id}"
    return f"teams:activity:{inbound.tenant_id}:{inbound.channel}:{inbound.activity_id}"


def _a_pick(inbound: Inbound) -> bool:
    """A click answering a question: one per card, choice and clicker (a double click is one).

    The answer's buttons may be pressed again later, by anyone: only a retry is one of those.
    """
    return inbound.choice is not None and not anyones(inbound.choice) and bool(inbound.card_id)


def incoming_of(inbound: Inbound) -> Incoming:
    """What the activity asks of the engine, as far as the activity alone says."""
    return Incoming(
        thread_key(inbound),
        inbound.user_id,
        text=inbound.text,
        choice=inbound.choice,
        directed=inbound.directed,
        message_ref=inbound.card_id,
        markup=Markup.TEAMS,
    )


async def submit(
    queue: WorkQueue, inbound: Inbound, *, dedupe_ttl_s: int, deadline_s: float
) -> Enqueued:
    """Enqueue the activity; counts duplicates and refusals.

    Raises:
        QueueUnavailable: nothing was taken (Redis is down).
    """
    spec = TeamsSpec(inbound=inbound, target=ReplyTarget.of(inbound))
    item = new_item(
        platform=PLATFORM,
        kind="click" if inbound.choice is not None else "message",
        incoming=incoming_of(inbound),
        responder=spec.model_dump(mode="json"),
        deadline_s=deadline_s,
    )
    return await admit(
        queue,
        item,
        dedupe=dedupe_key(inbound),
        dedupe_ttl_s=dedupe_ttl_s,
        repeatable=_a_pick(inbound),
    )
