"""`fold` (`bot.slack.webhook`): a note joins the last message only within Block Kit's limits."""

from __future__ import annotations

import pytest

from bot.slack.render.layout import BUDGET, MAX_BLOCKS, SlackMessage
from bot.slack.render.mrkdwn import section
from bot.slack.webhook import fold

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
