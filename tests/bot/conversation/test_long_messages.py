"""A message longer than the parser reads: the start is used, the asker is told privately.

Decided in the engine, so Slack, Teams and the console say it alike (their own tests send
one long message each: tests/bot/slack/test_entry_points.py, tests/bot/teams/test_turns.py).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.app.demo.console import PRIVATE, ConsoleSession
from bot.app.demo.scenarios import bundled_scenario
from bot.conversation import Notice, Question, ReportReply
from bot.conversation.messages import LOST_CONTEXT, not_read
from bot.conversation.parse_bounds import MAX_PARSED_CHARS, bounded
from diagnosis import Category
from tests.bot.conversation.harness import Harness, harness

DEMO = bundled_scenario("demo")
EVERYTHING = "why did training-job-42 in ml-team fail on cluster prod-a?"
#: The incident's message: a 40,000-character mention of `show show show …`.
SHOW_SHOW = "<@UBOT> " + "show " * 8000
PASTE = " " + "the pod log said: nothing useful here, really " * 200


def _not_read_notice(text: str) -> Notice:
    return Notice(not_read(len(text) - len(bounded(text).text)), private=True)


@pytest.fixture
async def demo() -> AsyncIterator[Harness]:
    async for h in harness(DEMO, bot_user_id="UBOT"):
        yield h


async def test_a_long_question_is_answered_from_its_start_and_the_asker_told_privately(demo):
    text = EVERYTHING + PASTE
    notice, *_, answer = (await demo.say(text)).replies()
    assert notice == _not_read_notice(text)
    assert f"read only its first {MAX_PARSED_CHARS:,} characters" in notice.text
    assert isinstance(answer, ReportReply)
    assert answer.report.category is Category.OOM_KILLED
    assert not answer.private


async def test_the_incidents_40_kb_mention_gets_the_notice_and_a_question(demo):
    notice, question = (await demo.say(SHOW_SHOW)).replies()
    assert notice == _not_read_notice(SHOW_SHOW)
    assert isinstance(question, Question)  # nothing named: which workload?


async def test_a_short_message_gets_no_such_notice(demo):
    replies = (await demo.say(EVERYTHING)).replies()
    assert not [r for r in replies if isinstance(r, Notice) and "message is long" in r.text]


async def test_the_askers_long_plain_reply_is_read_from_its_start(demo):
    await demo.say("why did training-job-42 in ml-team fail?")
    text = "it's on cluster prod-a" + PASTE
    notice, *_, answer = (await demo.say(text, directed=False)).replies()
    assert notice == _not_read_notice(text)
    assert isinstance(answer, ReportReply)


async def test_a_long_message_the_bot_does_not_answer_gets_no_notice_either(demo):
    outside = await demo.say("prod-a" + PASTE, directed=False)  # no conversation here
    await demo.say(EVERYTHING)
    overheard = await demo.say("prod-b" + PASTE, user="U2", directed=False)  # a teammate
    chatter = await demo.say("thanks!" + PASTE, directed=False)  # the asker, chatting
    assert outside.log == overheard.log == chatter.log == []


async def test_lost_context_is_said_without_the_notice(demo):
    replies = (await demo.say("prod-a" + PASTE, directed=False, bot_thread=True)).replies()
    assert replies == [Notice(LOST_CONTEXT, private=True)]


async def test_a_long_mention_that_starts_with_thanks_is_still_told(demo):
    """Addressed to the bot: the part not read might have been a question."""
    text = "thanks!" + PASTE
    assert (await demo.say(text)).replies() == [_not_read_notice(text)]


async def test_the_console_shows_the_notice_as_private():
    async for h in harness(DEMO):
        out: list[str] = []
        typed = EVERYTHING + PASTE
        await ConsoleSession(h.engine, out.append).say(typed)
        assert out[0] == f"runai-why> {PRIVATE}{_not_read_notice(typed.strip()).text}\n"
        assert "OOM_KILLED" in "".join(out[1:])


@pytest.mark.parametrize("typed", ["²", "1" * 5000], ids=["superscript-two", "5000-digits"])
async def test_a_number_the_console_cannot_pick_goes_to_the_engine(typed):
    """`"²".isdigit()`, yet int("²") raised; so did int() of 5,000 digits (past its limit)."""
    async for h in harness(DEMO):
        out: list[str] = []
        session = ConsoleSession(h.engine, out.append)
        await session.say("why did training-job-42 in ml-team fail?")  # one button: prod-a
        shown = len(out)
        await session.say(typed)
        assert len(out) > shown
        assert out[-1].endswith("[1] prod-a\n  (type a number to pick)\n")  # asked again
