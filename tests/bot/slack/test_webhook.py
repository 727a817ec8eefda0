"""`bot.slack.webhook`: `fold` within Block Kit's limits; `ResponseUrl` tells its posts first."""

from __future__ import annotations

import pytest
from slack_sdk.web.async_client import AsyncWebClient

from bot.slack.render.layout import BUDGET, MAX_BLOCKS, SlackMessage
from bot.slack.render.mrkdwn import section
from bot.slack.webhook import ResponseUrl, ResponseUrlRefused, fold
from tests.bot.slack.fake_slack import RESPONSE_URL, FakeSlack

NOTE = SlackMessage(text="note", blocks=[section("Invite me, then ask again.")])


def _message(blocks: int, chars: int) -> SlackMessage:
    return SlackMessage(text="m", blocks=[section("x" * chars) for _ in range(blocks)])


@pytest.mark.parametrize(
    ("last", "joined"),
    [
        (_message(1, 100), True),
        (_message(MAX_BLOCKS - 1, 10), True),
        (_message(MAX_BLOCKS, 10), False),  # no block left for the note
        (_message(4, (BUDGET - 10) // 4), False),  # no characters left for it
    ],
)
def test_a_note_joins_the_last_message_only_where_it_fits(last, joined):
    first = _message(1, 10)
    folded = fold([first, last], NOTE)
    if not joined:
        assert folded is None
        return
    assert folded == [first, SlackMessage(text="m", blocks=[*last.blocks, *NOTE.blocks])]


@pytest.mark.parametrize(
    ("spent", "refused", "told", "left"),
    [
        (0, False, [(2, True, 0)], 3),  # (posts, posting, how many were made by then)
        (1, True, [(2, True, 0), (2, False, 1)], 0),  # refused: none left, the rest told
        (4, False, [], 1),  # two do not fit: nothing posted, nothing spent
    ],
)
async def test_a_response_url_tells_its_posts_before_it_makes_them(
    fake_slack: FakeSlack, spent, refused, told, left
):
    calls: list[tuple[int, bool, int]] = []

    async def on_spend(uses: int, *, posting: bool) -> None:
        calls.append((uses, posting, len(fake_slack.calls(RESPONSE_URL))))

    if refused:
        fake_slack.fail_next(RESPONSE_URL, error="used_url")
    client = AsyncWebClient(token="xoxb-test", base_url=fake_slack.base_url)
    url = ResponseUrl(fake_slack.response_url("r"), client, spent=spent, on_spend=on_spend)
    messages = [_message(1, 10), _message(1, 10)]
    if refused or len(messages) > 5 - spent:
        with pytest.raises(ResponseUrlRefused):
            await url.send(messages, posting=True)
    else:
        await url.send(messages, posting=True)
    assert (calls, url.left) == (told, left)
