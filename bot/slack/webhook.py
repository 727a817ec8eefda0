"""A request's `response_url`: at most five posts, each one checked, none claimed that failed.

Slack takes five posts to one `response_url`, within 30 minutes of the request
(reference/slack-and-teams.md §2.1), and refuses the rest with an HTTP error (`used_url`,
`expired_url`) that `AsyncWebhookClient.send` returns instead of raising. `ResponseUrl`
counts the posts one responder makes and checks every answer: a refusal is logged and raised
(`ResponseUrlRefused`), and nothing more is posted there. It says how many it is about to
make before it makes them (`on_spend`: a queued request's journal, so that another attempt
after a crash counts them too). Fitting a reply into the posts left is the caller's (`fold`:
a notice joined onto the last message when Block Kit's limits allow). The URL itself is a
capability and is never logged.
"""

from __future__ import annotations

from collections.abc import Sequence
from http import HTTPStatus
from typing import Protocol

import structlog
from slack_sdk.web.async_client import AsyncWebClient
from slack_sdk.webhook.async_client import AsyncWebhookClient

from bot.errors import BotError
from bot.slack.render.layout import BUDGET, MAX_BLOCKS, SlackMessage
from bot.slack.render.mrkdwn import block_chars

__all__ = [
    "LISTENER_POSTS",
    "RESPONSE_URL_USES",
    "ResponseUrl",
    "ResponseUrlRefused",
    "Spend",
    "fold",
]

#: How many posts Slack takes to one `response_url`.
RESPONSE_URL_USES = 5
#: Posts the listener may make to a request's `response_url` before a worker answers it: the
#: asker's place in the queue, told beside the acknowledgement.
LISTENER_POSTS = 1
#: The part of Slack's answer to a refused post that is logged (`used_url`, `expired_url`).
_ANSWER_SHOWN = 100


class Spend(Protocol):
    """Told how many more posts are spent, before they are made."""

    async def __call__(self, uses: int, *, posting: bool) -> None:
        """`posting`: they are a public reply's, posted to the `response_url` instead."""
        ...


class ResponseUrlRefused(BotError):
    """Slack did not take a post to a request's `response_url` (used up, expired, refused)."""


class ResponseUrl:
    """One request's `response_url`, posted to on the Web API client's session."""

    def __init__(
        self, url: str, client: AsyncWebClient, *, spent: int = 0, on_spend: Spend | None = None
    ) -> None:
        """`spent`: posts others may have made to `url` already (they count against its five).

        `on_spend` is told of the posts `send` spends, before they are made.
        """
        self._url = url
        self._client = client
        self._used = spent
        self._on_spend = on_spend
        self._log = structlog.get_logger(__name__)

    @property
    def left(self) -> int:
        """How many more posts Slack would take (none after a refusal)."""
        return RESPONSE_URL_USES - self._used

    async def send(self, messages: Sequence[SlackMessage], *, posting: bool = False) -> None:
        """Post `messages` in order, each shown to the asker only.

        They are counted (and `on_spend` told, with `posting`: they are a public reply's,
        posted here instead) before the first is made: a post Slack may have taken counts,
        whatever its answer. After a refusal none is left, and `on_spend` is told so.

        Raises:
            ResponseUrlRefused: more messages than posts left (then none is posted), or
                Slack refused one (those after it are not posted).
        """
        if len(messages) > self.left:
            self._log.error("slack_response_url_used_up", messages=len(messages), left=self.left)
            raise ResponseUrlRefused(f"{len(messages)} messages, {self.left} posts left")
        await self._spend(len(messages), posting=posting)
        # The client's session as it is now: its kept-alive connections (`bot.slack.session`).
        webhook = AsyncWebhookClient(self._url, session=self._client.session)
        for message in messages:
            response = await webhook.send(
                text=message.text, blocks=message.blocks, response_type="ephemeral"
            )
            if not HTTPStatus.OK <= response.status_code < HTTPStatus.MULTIPLE_CHOICES:
                await self._spend(max(0, self.left))  # it takes none any more
                answer = str(response.body)[:_ANSWER_SHOWN]
                self._log.warning(
                    "slack_response_url_post_refused", status=response.status_code, answer=answer
                )
                raise ResponseUrlRefused(f"HTTP {response.status_code}: {answer}")

    async def _spend(self, uses: int, *, posting: bool = False) -> None:
        self._used += uses
        if uses and self._on_spend is not None:
            await self._on_spend(uses, posting=posting)


def fold(messages: Sequence[SlackMessage], note: SlackMessage) -> list[SlackMessage] | None:
    """`messages` with `note`'s blocks after the last one's, or None if they would not fit.

    Within the blocks and the characters a message may have (`MAX_BLOCKS`, `BUDGET`).
    """
    *first, last = messages
    joined = [*last.blocks, *note.blocks]
    if len(joined) > MAX_BLOCKS or block_chars(*joined) > BUDGET:
        return None
    return [*first, SlackMessage(text=last.text, blocks=joined)]
