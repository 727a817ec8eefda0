"""Button clicks (a cluster or a workload to pick) continue the conversation in its thread.

A click is taken into the work queue before it is acknowledged. Only the person who asked
can pick: the worker tells anyone else so privately (`bot.slack.work`). Each person's click
is claimed on its own, so a teammate's click cannot use up the asker's; a double click is
one. The engine gets the question's message, which it replaces by the choice (so it cannot
be answered twice).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from bot.conversation import Incoming, ThreadKey, messages
from bot.slack.deps import SlackDeps
from bot.slack.intake import ResponderSpec
from bot.slack.listeners.events import DM_THREAD, dm_top
from bot.slack.listeners.routes import Ack, Route, SlackRequest
from bot.slack.listeners.take import take
from bot.slack.responder import CHOICE_ACTION

__all__ = ["ROUTES", "Click", "clicked", "mention", "only_asker", "take_choice"]

_USER_ID = re.compile(r"^[UW][A-Z0-9]{1,20}$")


def mention(user: str) -> str:
    """How a Slack message names `user`: a mention of a real user ID, else a plain phrase."""
    return f"<@{user}>" if _USER_ID.match(user) else "the person who asked"


def only_asker(asker: str) -> str:
    """The private answer to a click from someone other than the asker, naming them."""
    return messages.only_asker(mention(asker))


@dataclass(frozen=True)
class Click:
    """Who clicked a button of ours, on which thread's message, and where to answer them."""

    key: ThreadKey
    user: str
    spec: ResponderSpec


def clicked(body: dict[str, Any]) -> Click | None:
    """Where a click happened (None when the payload names no channel, thread or user)."""
    message = body.get("message") or {}
    container = body.get("container") or {}
    channel = (body.get("channel") or {}).get("id") or container.get("channel_id")
    top = dm_top(str(channel), message.get("thread_ts"))
    thread = DM_THREAD if top else message.get("thread_ts") or message.get("ts")
    user = (body.get("user") or {}).get("id", "")
    if not channel or not thread or not user:
        return None
    spec = ResponderSpec(
        channel=channel,
        thread_ts=None if top else thread,
        user=user,
        response_url=body.get("response_url"),
        threaded=not top,
    )
    key = ThreadKey("slack", (body.get("team") or {}).get("id", ""), channel, thread)
    return Click(key, user, spec)


async def take_choice(deps: SlackDeps, request: SlackRequest) -> Ack:
    """Take a click on a choice button (a cluster or a workload) into the queue."""
    body = request.body
    click = clicked(body)
    if click is None:
        return Ack()
    message = body.get("message") or {}
    container = body.get("container") or {}
    # An ephemeral question cannot be updated in place: the engine then replaces the
    # thread's public question instead (its stored reference).
    ref = None if container.get("is_ephemeral") else message.get("ts")
    value = body["actions"][0].get("value", "")
    await take(
        deps,
        request.client,
        kind="click",
        incoming=Incoming(click.key, click.user, choice=value, message_ref=ref),
        spec=click.spec,
        dedupe=f"act:{click.key.channel}:{message.get('ts')}:{value}:{click.user}",
        repeatable=True,
    )
    return Ack()


ROUTES = [Route("action", re.compile(rf"^{CHOICE_ACTION}_\d+$"), take_choice)]
