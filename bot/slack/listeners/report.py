"""The buttons on an answer: "Show all evidence" and "Check again" continue its thread.

Anyone in the channel may press them: both show what the thread already shows everyone
(the full evidence of the answer above, or a fresh diagnosis of the same workload). Each
press is one request, taken into the work queue once by its `action_ts` before it is
acknowledged, so Slack's retries answer once.
"Open in Run:ai" is a link; its click is only acknowledged.
"""

from __future__ import annotations

from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from bot.conversation import RERUN, SHOW_EVIDENCE, Incoming
from bot.render.actions import OPEN_IN_RUNAI, SHOW_ALL_EVIDENCE
from bot.render.actions import RERUN as RERUN_ACTION
from bot.slack.deps import SlackDeps
from bot.slack.listeners.actions import clicked
from bot.slack.listeners.take import take

__all__ = ["register"]

#: Report button → the engine's action for it.
_ENGINE_ACTION = {SHOW_ALL_EVIDENCE: SHOW_EVIDENCE, RERUN_ACTION: RERUN}


def register(app: AsyncApp, deps: SlackDeps) -> None:
    """Register the report-button listeners."""

    async def on_report_action(
        ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], client: AsyncWebClient
    ) -> None:
        click = clicked(body)
        choice = _ENGINE_ACTION.get(str(action.get("action_id")))
        if click is not None and choice is not None:
            await take(
                deps,
                client,
                kind="turn",
                incoming=Incoming(click.key, click.user, choice=choice),
                spec=click.spec,
                dedupe=f"report:{click.key.redis_key('act')}:{click.user}:{action.get('action_ts')}",
            )
        await ack()

    async def on_link(ack: AsyncAck) -> None:
        await ack()  # a URL button: Slack opens the link; an unacknowledged click shows a warning

    for action_id in _ENGINE_ACTION:
        app.action(action_id)(on_report_action)
    app.action(OPEN_IN_RUNAI)(on_link)
