"""The buttons on an answer: "Show all evidence" and "Check again" continue its thread.

Anyone in the channel may press them: both show what the thread already shows everyone
(the full evidence of the answer above, or a fresh diagnosis of the same workload). The
button's value names that answer (`ActionTarget`), and the engine acts on it, not on
whichever answer the thread showed last. Each press is one request, taken into the work
queue once by its `action_ts` before it is acknowledged, so Slack's retries answer once.
"Open in Run:ai" is a link; its click is only acknowledged.
"""

from __future__ import annotations

from bot.conversation import RERUN, SHOW_EVIDENCE, Incoming, report_choice
from bot.render.actions import OPEN_IN_RUNAI, SHOW_ALL_EVIDENCE
from bot.render.actions import RERUN as RERUN_ACTION
from bot.slack.deps import SlackDeps
from bot.slack.listeners.actions import clicked
from bot.slack.listeners.routes import Ack, Route, SlackRequest
from bot.slack.listeners.take import take

__all__ = ["ROUTES", "take_link", "take_report_action"]

#: Report button → the engine's action for it.
_ENGINE_ACTION = {SHOW_ALL_EVIDENCE: SHOW_EVIDENCE, RERUN_ACTION: RERUN}


async def take_report_action(deps: SlackDeps, request: SlackRequest) -> Ack:
    """Take a press of "Show all evidence" or "Check again" into the queue."""
    body = request.body
    action = body["actions"][0]
    click = clicked(body)
    choice = _ENGINE_ACTION.get(str(action.get("action_id")))
    if click is not None and choice is not None:
        value = action.get("value")
        target = value if isinstance(value, str) and value else None
        await take(
            deps,
            request.client,
            kind="turn",
            incoming=Incoming(click.key, click.user, choice=report_choice(choice, target)),
            spec=click.spec,
            dedupe=f"report:{click.key.redis_key('act')}:{click.user}:{action.get('action_ts')}",
        )
    return Ack()


async def take_link(_: SlackDeps, __: SlackRequest) -> Ack:
    """A URL button: Slack opens the link; an unacknowledged click shows a warning."""
    return Ack()


ROUTES = [
    *(Route("action", action_id, take_report_action) for action_id in _ENGINE_ACTION),
    Route("action", OPEN_IN_RUNAI, take_link),
]
