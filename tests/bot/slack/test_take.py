"""A refusal's notice goes out beside the ack, on Slack's first delivery only; a "thanks" is quiet.

The notice's send is held until the ack (`take` returning) is in: a slow send never delays the
ack, so Slack has no reason to deliver the event again.
"""

from __future__ import annotations

import asyncio
from typing import Any, cast

import pytest
from slack_sdk.web.async_client import AsyncWebClient

from bot.conversation import ConversationEngine, Incoming, StateStore, ThreadKey
from bot.conversation.messages import QUEUE_FULL, capped
from bot.slack.deps import SlackDeps
from bot.slack.intake import ResponderSpec
from bot.slack.listeners.take import take
from bot.work import MemoryWorkQueue


class _HeldSlack:
    """chat.postEphemeral that answers only once `release` is set."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.started: list[str] = []
        self.sent: list[str] = []

    async def chat_postEphemeral(self, **kwargs: Any) -> dict[str, Any]:  # noqa: N802 - Slack's
        self.started.append(str(kwargs["text"]))
        await self.release.wait()
        self.sent.append(str(kwargs["text"]))
        return {"ok": True}


async def _take(deps: SlackDeps, slack: _HeldSlack, key: str, **flags: bool) -> None:
    thread = ThreadKey("slack", "T1", "C1", "1.0")
    await take(
        deps,
        cast("AsyncWebClient", slack),
        kind="turn",
        incoming=Incoming(thread, "U1", text="why did training-job-42 fail"),
        spec=ResponderSpec(channel="C1", thread_ts="1.0", user="U1"),
        dedupe=key,
        retry=True,
        **flags,
    )


@pytest.mark.parametrize(
    ("queue", "flags", "told"),
    [
        pytest.param({"max_items": 9, "max_per_asker": 1}, {}, [capped(1)], id="capped"),
        pytest.param(
            {"max_items": 9, "max_per_asker": 1}, {"first_delivery": False}, [], id="capped, retry"
        ),
        pytest.param(
            {"max_items": 9, "max_per_asker": 1},
            {"quiet_when_capped": True},
            [],
            id="capped, a plain thread reply",
        ),
        pytest.param({"max_items": 1}, {}, [QUEUE_FULL], id="full"),
        pytest.param({"max_items": 1}, {"first_delivery": False}, [], id="full, retry"),
        pytest.param(
            {"max_items": 1}, {"quiet_when_capped": True}, [QUEUE_FULL], id="full, thread reply"
        ),
    ],
)
async def test_a_refusal_is_told_after_the_ack_once(
    queue: dict[str, int], flags: dict[str, bool], told: list[str]
):
    deps = SlackDeps(
        engine=cast("ConversationEngine", None),
        store=cast("StateStore", None),
        queue=MemoryWorkQueue(**queue),
    )
    slack = _HeldSlack()
    await _take(deps, slack, "first")  # taken, nothing ahead: nothing said
    async with asyncio.timeout(5):  # a hang guard: the old code waited for the send
        await _take(deps, slack, "second", **flags)
    assert slack.sent == []  # the ack is in before the notice went out
    slack.release.set()
    await deps.notices.drain(5)
    assert slack.sent == told
