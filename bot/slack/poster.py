"""Pushed answers in Slack: the `Poster` that posts a new message or replies in its thread."""

from __future__ import annotations

from slack_sdk.web.async_client import AsyncWebClient

from bot.conversation import Responder
from bot.push import Target
from bot.push.posters import OnPosted
from bot.slack.listeners.events import DM_THREAD, dm_top
from bot.slack.responder import SlackResponder

__all__ = ["SlackPoster"]


class SlackPoster:
    """Posts with the bot token's Web API client (`chat.postMessage`, `chat.update`)."""

    def __init__(self, client: AsyncWebClient, *, runai_url: str | None) -> None:
        self._client = client
        self._runai_url = runai_url

    def responder(self, target: Target, thread: str | None, on_posted: OnPosted) -> Responder:
        """See `Poster.responder`."""
        responder = SlackResponder(
            self._client,
            channel=target.channel,
            thread_ts=thread,
            user="",  # nobody asked: a pushed item never replies privately
            runai_url=self._runai_url,
        )
        responder.on_posted = on_posted
        return responder

    def click_thread(self, target: Target, thread: str | None) -> str | None:
        """See `Poster.click_thread`: a DM's top level is its one conversation."""
        return DM_THREAD if dm_top(target.channel, thread) else thread
