"""Fixtures for the Slack tests: one running replica of the bot (see `harness`)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.bot.slack.fake_slack import FakeSlack
from tests.bot.slack.harness import Bot, running_bots


@pytest.fixture
async def bot(fake_slack: FakeSlack, redis_url: str, redis_client) -> AsyncIterator[Bot]:
    """One replica against the demo scenario, a real Redis (flushed) and the fake Slack."""
    async with running_bots(fake_slack, redis_url) as bots:
        yield bots[0]
