"""Each answer's buttons act on that answer, checked against it, in a thread of several.

In the demo, UA (alice) may not read project nlp and UB (bob) reads everything. UB asks
about jupyter-alice (nlp), then about training-job-42 (ml-team) in the same thread: the
first answer's buttons still act on jupyter-alice, whoever presses them, and a button
whose target names no answer of the thread does nothing but say so.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence

import pytest

from bot.conversation import (
    PUBLISH,
    RERUN,
    SHOW_EVIDENCE,
    EvidenceReply,
    Notice,
    Question,
    Reply,
    ReportReply,
    report_action,
    report_choice,
)
from bot.conversation.messages import NOT_IN_THREAD
from bot.render.actions import ActionTarget, report_target
from tests.bot.conversation.harness import Harness, Sink, people

ASK_NLP = "why did jupyter-alice in nlp fail on cluster prod-a"
ASK_ML = "<@UBOT> why did training-job-42 in ml-team fail on cluster prod-a"
ASK_VISION = "<@UBOT> why did resnet-ddp in vision fail on cluster prod-a"
#: eval-harness (ml-team), which this thread never answered.
NEVER_ANSWERED = ActionTarget(
    "2b7c3d1e-9f4a-4c58-a1d6-5e8f0b3c7d92", "fcfaaec8-47fa-404b-a64e-169ccc4af8e8"
).to_value()


def _answer(replies: Sequence[Reply]) -> ReportReply:
    [answer] = [r for r in replies if isinstance(r, ReportReply)]
    return answer


def _button(answer: ReportReply, action: str) -> str:
    """The choice a front end sends for the button `action` on `answer`."""
    return report_choice(action, report_target(answer.report, answer.lookback))


def _about(reply: Reply) -> str | None:
    report = reply.report if isinstance(reply, EvidenceReply | ReportReply) else None
    return report.workload.name if report and report.workload else None


async def _two_answers(
    channel_projects: Mapping[str, Sequence[str]] | None = None,
) -> AsyncIterator[tuple[Harness, ReportReply, ReportReply]]:
    async with people(Sink(), channel_projects) as chat:
        first = _answer((await chat.say(ASK_NLP, user="UB")).replies())
        second = _answer((await chat.say(ASK_ML, user="UB")).replies())
        assert (_about(first), _about(second)) == ("jupyter-alice", "training-job-42")
        yield chat, first, second


@pytest.mark.parametrize(
    ("user", "on", "shown"),
    [
        pytest.param("UB", "first", "jupyter-alice", id="the first answer's, to who may read it"),
        pytest.param("UA", "first", None, id="the first answer's, to who may not"),
        pytest.param("UA", "second", "training-job-42", id="the last answer's"),
        pytest.param("UA", "old", "training-job-42", id="a button from before: the last"),
    ],
)
async def test_show_all_evidence_shows_the_answer_it_is_on_to_who_may_read_it(
    user: str, on: str, shown: str | None
):
    async for chat, first, second in _two_answers():
        choice = {
            "first": _button(first, SHOW_EVIDENCE),
            "second": _button(second, SHOW_EVIDENCE),
            "old": SHOW_EVIDENCE,
        }[on]
        replies = (await chat.click(choice, user=user)).replies()
    if shown is None:
        [denied] = replies
        assert isinstance(denied, Notice)
        assert denied.private
        assert "jupyter-alice" not in denied.text
        assert "training-job-42" not in denied.text
    else:
        [evidence] = replies
        assert isinstance(evidence, EvidenceReply)
        assert _about(evidence) == shown


@pytest.mark.parametrize("action", [SHOW_EVIDENCE, RERUN, PUBLISH])
@pytest.mark.parametrize(
    "target",
    [NEVER_ANSWERED, '{"cluster_id":"prod-a"}', "nonsense"],
    ids=["a workload never answered here", "no workload", "not a value of ours"],
)
async def test_a_target_naming_no_answer_of_the_thread_is_told_privately_and_nothing_runs(
    action: str, target: str
):
    async for chat, _, _ in _two_answers():
        replies = (await chat.click(report_choice(action, target), user="UB")).replies()
        evidence = (await chat.click(SHOW_EVIDENCE, user="UB")).replies()
    assert replies == [Notice(NOT_IN_THREAD, private=True)]
    assert [_about(r) for r in evidence] == ["training-job-42"], "the thread is as it was"


async def test_check_again_on_the_first_answer_diagnoses_it_and_both_stay_clickable():
    async for chat, first, second in _two_answers():
        again = (await chat.click(_button(first, RERUN), user="UB")).replies()
        refused = (await chat.click(_button(first, RERUN), user="UA")).replies()
        second_evidence = (await chat.click(_button(second, SHOW_EVIDENCE), user="UA")).replies()
        typed = (await chat.say("<@UBOT> show all evidence", user="UB")).replies()
    [working, checked] = again
    assert isinstance(working, Notice)
    assert working.text.startswith("Diagnosing jupyter-alice in nlp")
    assert isinstance(checked, Notice)
    assert "nothing changed" in checked.text
    assert first.report.category is not None
    assert first.report.category.value in checked.text, "compared with the answer it is on"
    [denied] = refused
    assert isinstance(denied, Notice)
    assert denied.private
    assert "jupyter-alice" not in denied.text
    assert [_about(r) for r in second_evidence] == ["training-job-42"]
    assert [_about(r) for r in typed] == ["jupyter-alice"], "checked again: the thread's last"


async def test_post_it_to_the_thread_posts_the_answer_it_was_offered_for():
    """C1 discusses only ml-team: both answers are private, each with its own offer."""
    async with people(Sink(), {"C1": ["ml-team"]}) as chat:
        first = (await chat.say(ASK_NLP, user="UB")).replies()
        second = (await chat.say(ASK_VISION, user="UB")).replies()
        [offer_first] = [r for r in first if isinstance(r, Question)]
        [offer_second] = [r for r in second if isinstance(r, Question)]
        [publish_first] = [c.value for c in offer_first.choices]
        assert report_action(publish_first) == (
            PUBLISH,
            report_target(_answer(first).report, "24h"),
        )
        old = (await chat.click(PUBLISH, user="UB")).replies()  # a button from before: the last
        posted = (await chat.click(publish_first, user="UB")).replies()
        [publish_second] = [c.value for c in offer_second.choices]
        again = (await chat.click(publish_second, user="UB")).replies()
    assert _answer(first).private
    assert _answer(second).private
    assert [_about(r) for r in old] == ["resnet-ddp"]
    [shown] = posted
    assert isinstance(shown, ReportReply)
    assert not shown.private
    assert _about(shown) == "jupyter-alice"
    assert [type(r) for r in again] == [Notice], "posted already, by the button from before"
