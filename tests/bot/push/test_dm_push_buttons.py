"""A push into a DM whose question waits, about the workload its last answer is about."""

from __future__ import annotations

from bot.conversation import ReportReply
from bot.conversation.answers import clicked
from bot.conversation.parse import Expecting
from bot.render.actions import report_target
from tests.bot.push.test_handler import (
    DM,
    EVAL_ID,
    _asked_in_the_dm,
    _eval_harness,
    _item,
    _spec,
    rig,
)

__all__ = ["rig"]  # the fixture, used by name


async def test_the_pushed_answers_buttons_act_on_it_not_on_the_older_one(rig):
    asked = (await _eval_harness(rig)).report
    older = asked.model_copy(update={"headline": "the answer the asker was given earlier"})
    before = _asked_in_the_dm(
        last_report=older,
        last_lookback="24h",
        report_for="U1",
        expecting=Expecting.WORKLOAD,
        question="Did you mean a past run?",
    )
    await rig.store.save(DM.key("im"), before)
    await rig.run(_item(_spec(EVAL_ID, target=DM)))
    [root] = rig.poster.roots()
    assert isinstance(root.reply, ReportReply)
    saved = await rig.store.load(DM.key("im"))
    assert saved is not None
    assert saved.question == "Did you mean a past run?", "the DM's question still waits"
    on_pushed = clicked(saved, report_target(root.reply.report, "24h"))
    on_older = clicked(saved, report_target(older, "24h"))
    assert on_pushed is not None
    assert on_older is not None
    assert on_pushed.last_report == root.reply.report
    assert on_older.last_report == older
