"""A thread's answers, each found again by the target its buttons carry."""

from __future__ import annotations

import pytest

from bot.conversation import (
    PUBLISH,
    RERUN,
    SHOW_EVIDENCE,
    Answer,
    ConversationState,
    Slots,
    report_choice,
)
from bot.conversation.answers import MAX_EARLIER, archived, clicked, current, pushed
from bot.conversation.parse import Expecting
from bot.render.actions import VALUE_MAX, ActionTarget, report_target
from diagnosis import Report
from tests.bot.render.reports import WORKLOAD, report


def _report(workload_id: str, cluster_id: str = "prod-a") -> Report:
    workload = WORKLOAD.model_copy(update={"id": workload_id, "cluster_id": cluster_id})
    return report(workload=workload, headline=f"about {workload_id}")


def _slots(workload_id: str, cluster_id: str = "prod-a") -> Slots:
    return Slots(cluster_id=cluster_id, cluster_label="Prod A", workload_id=workload_id)


def _answer(workload_id: str, *, report_for: str = "", private: bool = False) -> Answer:
    return Answer(
        report=_report(workload_id),
        slots=_slots(workload_id),
        lookback="24h",
        report_for=report_for,
        private=private,
    )


def _target(workload_id: str, cluster_id: str = "prod-a") -> str:
    value = ActionTarget(cluster_id, workload_id, "24h").to_value()
    assert value is not None
    return value


#: A thread that answered w1 (privately, for UA), then w2, then w3 (for UB), last.
THREAD = ConversationState(
    slots=_slots("w3"),
    asker="UB",
    last_report=_report("w3"),
    last_lookback="7d",
    report_for="UB",
    answer_slots=_slots("w3"),
    earlier=(_answer("w1", report_for="UA", private=True), _answer("w2")),
)


def _about(state: ConversationState | None) -> str | None:
    w = state.last_report.workload if state and state.last_report else None
    return w.id if w else None


@pytest.mark.parametrize(
    ("target", "last", "earlier"),
    [
        pytest.param(None, "w3", ["w1", "w2"], id="no target: a button from before, the last"),
        pytest.param(_target("w3"), "w3", ["w1", "w2"], id="the last answer"),
        pytest.param(_target("w1"), "w1", ["w2", "w3"], id="an earlier answer"),
        pytest.param(_target("w2"), "w2", ["w1", "w3"], id="another earlier answer"),
        pytest.param(_target("w9"), None, None, id="a workload the thread never answered"),
        pytest.param(_target("w1", "prod-b"), None, None, id="the right ID on another cluster"),
        pytest.param('{"workload_id":"w1"}', None, None, id="no cluster"),
        pytest.param('{"cluster_id":"prod-a","workload_id":"w1 x"}', None, None, id="not an ID"),
        pytest.param("not json", None, None, id="not a value of ours"),
        pytest.param("[" * 1500, None, None, id="nested deeper than the parser goes"),
        pytest.param(_target("w1") + " " * VALUE_MAX, None, None, id="longer than a value"),
    ],
)
def test_a_click_finds_the_answer_its_button_is_on_or_none(
    target: str | None, last: str | None, earlier: list[str] | None
):
    shown = clicked(THREAD, target)
    assert _about(shown) == last
    if shown is not None:
        assert [a.report.workload.id for a in shown.earlier if a.report.workload] == earlier


def test_an_earlier_answer_clicked_is_seen_as_it_was_shown():
    shown = clicked(THREAD, _target("w1"))
    assert shown is not None
    assert (shown.report_for, shown.answer_private, shown.last_lookback) == ("UA", True, "24h")
    assert shown.slots == shown.answer_slots == _slots("w1")
    assert shown.asker == "UB", "the thread's asker is the thread's"
    [*_, replaced] = shown.earlier
    assert replaced == Answer(
        report=_report("w3"), slots=_slots("w3"), lookback="7d", report_for="UB"
    )


@pytest.mark.parametrize(
    ("earlier", "new", "kept"),
    [
        pytest.param([], "w4", ["w3"], id="the last answer joins the earlier ones"),
        pytest.param(["w1", "w2"], "w4", ["w1", "w2", "w3"], id="after them"),
        pytest.param(["w1", "w2"], "w3", ["w1", "w2"], id="the same workload again replaces it"),
        pytest.param(["w1", "w2"], "w1", ["w2", "w3"], id="an earlier workload again leaves them"),
        pytest.param(["w3", "w1"], "w4", ["w1", "w3"], id="one per workload"),
        pytest.param(
            [f"e{i}" for i in range(MAX_EARLIER)],
            "w4",
            [f"e{i}" for i in range(1, MAX_EARLIER)] + ["w3"],
            id="the oldest go beyond the bound",
        ),
    ],
)
def test_a_new_answer_keeps_the_one_it_replaces_once_per_workload_and_bounded(
    earlier: list[str], new: str, kept: list[str]
):
    state = THREAD.model_copy(update={"earlier": tuple(_answer(w) for w in earlier)})
    assert [a.slots.workload_id for a in archived(state, _report(new))] == kept


def test_a_state_saved_before_answers_kept_their_slots_gives_the_reports_own():
    """The thread's slots may be another workload's by then (a message naming two)."""
    old = THREAD.model_copy(update={"answer_slots": None, "slots": _slots("w4", "prod-b")})
    answer = current(old)
    assert answer is not None
    assert answer.slots == Slots(
        cluster_id="prod-a", workload_id="w3", project="ml-team", lookback="7d"
    )
    same_cluster = current(old.model_copy(update={"slots": _slots("w4")}))
    assert same_cluster is not None
    assert same_cluster.slots.cluster_label == "Prod A"


def test_an_answer_about_no_workload_has_no_buttons_and_is_not_kept():
    lost = THREAD.model_copy(update={"last_report": report(workload=None)})
    assert current(lost) is None
    assert archived(lost, _report("w4")) == THREAD.earlier
    assert clicked(lost, _target("w3")) is None


def test_a_push_starts_a_thread_or_becomes_its_last_answer():
    new = pushed(None, _answer("w5"))
    assert _about(new) == "w5"
    assert new.slots == new.answer_slots == _slots("w5")
    assert (new.asker, new.report_for, new.earlier) == ("", "", ())
    after = pushed(THREAD, _answer("w5"))
    assert _about(after) == "w5"
    assert after.asker == "UB"
    assert [a.slots.workload_id for a in after.earlier] == ["w1", "w2", "w3"]


def test_a_push_into_a_conversation_with_a_question_waiting_keeps_it_for_its_buttons_only():
    """A DM's conversation asking "which cluster?": the answer to it must not change."""
    waiting = THREAD.model_copy(
        update={
            "expecting": Expecting.CLUSTER,
            "question": "Which cluster?",
            "slots": Slots(workload_name="eval-harness"),
        }
    )
    after = pushed(waiting, _answer("w5"))
    assert after.model_copy(update={"earlier": waiting.earlier}) == waiting
    assert [a.slots.workload_id for a in after.earlier] == ["w1", "w2", "w5"]
    shown = clicked(after, _target("w5"))
    assert _about(shown) == "w5"


def test_the_target_is_the_one_the_buttons_carry():
    r = _report("w1")
    assert report_target(r, "24h") == _target("w1")
    assert report_target(report(workload=None), "24h") is None


def test_the_longest_target_fits_in_a_button_value_with_any_action():
    """Slack's 2,000 characters (Teams' cards are held to it too): IDs are at most 128."""
    longest = ActionTarget("c" * 128, "w" * 128, "999999abc").to_value()
    assert longest is not None
    for action in (SHOW_EVIDENCE, RERUN, PUBLISH):
        assert len(report_choice(action, longest)) <= VALUE_MAX
    assert ActionTarget("c" * 129, "w", "24h").to_value() is None
