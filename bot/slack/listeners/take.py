"""Take a Slack request into the work queue and tell its asker, privately, what happened.

For events (`retry`), Redis down means the HTTP answer is an error, so Slack delivers the
event again and nothing is lost; the asker hears about it once, on the first delivery. For
clicks and shortcuts (never retried by Slack) the asker is told to try again.

Every intake notice (their place, the queue full, their own cap reached) goes out beside the
ack (`deps.notices`), never before it: a slow send must not make Slack deliver the event again.
A refusal claims no dedupe key, so a retry of a refused event is refused again: its notice is
sent on the first delivery only. A plain reply in a thread (`quiet_when_capped`: a "thanks" is
no request) refused for its asker's cap is only logged (`bot.work.admit`).
"""

from __future__ import annotations

from slack_sdk.web.async_client import AsyncWebClient

from bot.conversation import Incoming
from bot.conversation.edges import not_taken_notice, taken_notice
from bot.slack.deps import SlackDeps
from bot.slack.intake import ResponderSpec, RetryLater, submit
from bot.work import Intake, QueueUnavailable

__all__ = ["take"]


async def take(
    deps: SlackDeps,
    client: AsyncWebClient,
    *,
    kind: str,
    incoming: Incoming,
    spec: ResponderSpec,
    dedupe: str,
    retry: bool = False,
    first_delivery: bool = True,
    repeatable: bool = False,
    quiet_when_capped: bool = False,
) -> None:
    """Enqueue the request; a refusal (full, the asker's cap) or Redis down is told at once.

    `repeatable`: a click its asker may send again under the same key (`bot.work.admit`).
    `quiet_when_capped`: an undirected reply; over its asker's cap it is refused unannounced.

    Raises:
        RetryLater: `retry` is set and Redis is down (Slack will deliver the event again).
    """
    responder = spec.responder(client, runai_url=deps.runai_url)
    try:
        taken = await submit(
            deps.queue,
            kind=kind,
            incoming=incoming,
            spec=spec,
            dedupe=dedupe,
            dedupe_ttl_s=deps.dedupe_ttl_s,
            deadline_s=deps.queue_deadline_s,
            repeatable=repeatable,
        )
    except QueueUnavailable as error:
        if not retry:
            await responder.tell(not_taken_notice(error))
            return
        if first_delivery:
            await responder.tell(not_taken_notice(error, retrying=True))
        raise RetryLater(str(error)) from error
    notice = taken_notice(taken)
    if notice is None or (quiet_when_capped and taken.intake is Intake.CAPPED):
        return
    if taken.intake in {Intake.FULL, Intake.CAPPED} and not first_delivery:
        return  # told on the first delivery: a retry is refused again, not told again
    deps.notices.send(responder.tell(notice))
