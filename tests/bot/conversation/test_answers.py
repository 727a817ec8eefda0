"""A thread's answers, each found again by the target its buttons carry."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.conversation import (
    PUBLISH,
    RERUN,
    SHOW_EVIDENCE,
    Answer,
    ConversationState,
    Slots,
    ThreadKey,
    report_choice,
)
from bot.conversation.answers import MAX_EARLIER, archived, clicked, current, fresh, pushed
from bot.conversation.parse import Expecting
from bot.conversation.store import MemoryStore
from bot.render.actions import VALUE_MAX, ActionTarget, answer_id, report_target
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
    value = report_target(r, "24h")
    assert value is not None
    assert ActionTarget.from_value(value) == ActionTarget("prod-a", "w1", "24h", answer_id(r))
    stored = Report.model_validate_json(r.model_dump_json())
    assert report_target(stored, "24h") == value, "the report read back from the state: the same"
    assert report_target(report(workload=None), "24h") is None


def test_the_longest_target_fits_in_a_button_value_with_any_action():
    """Slack's 2,000 characters (Teams' cards are held to it too): IDs are at most 128."""
    longest = ActionTarget("c" * 128, "w" * 128, "999999abc").to_value()
    assert longest is not None
    for action in (SHOW_EVIDENCE, RERUN, PUBLISH):
        assert len(report_choice(action, longest)) <= VALUE_MAX
    assert ActionTarget("c" * 129, "w", "24h").to_value() is None


def _pushed_beside_the_last() -> tuple[ConversationState, Report]:
    """A DM waiting on "did you mean a past run?" about w3, then a push about w3 again."""
    waiting = THREAD.model_copy(
        update={"expecting": Expecting.WORKLOAD, "question": "Did you mean a past run?"}
    )
    new = _report("w3").model_copy(update={"headline": "pushed about w3"})
    return pushed(waiting, Answer(report=new, slots=_slots("w3"), lookback="24h")), new


@pytest.mark.parametrize(
    ("which", "headline"),
    [
        pytest.param("pushed", "pushed about w3", id="the pushed answer's buttons: it"),
        pytest.param("last", "about w3", id="the last answer's buttons: it"),
        pytest.param("before digests", "about w3", id="a button without a digest: the last"),
        pytest.param("replaced", "about w3", id="an answer since replaced: its workload's"),
    ],
)
def test_two_answers_about_one_workload_are_told_apart_by_their_buttons(which: str, headline: str):
    after, new = _pushed_beside_the_last()
    assert after.question == "Did you mean a past run?", "the question still waits"
    gone = _report("w3").model_copy(update={"headline": "checked again since"})
    target = {
        "pushed": report_target(new, "24h"),
        "last": report_target(_report("w3"), "7d"),
        "before digests": _target("w3"),
        "replaced": report_target(gone, "24h"),
    }[which]
    shown = clicked(after, target)
    assert shown is not None
    assert shown.last_report is not None
    assert shown.last_report.headline == headline


def test_the_longest_target_with_its_digest_fits_in_a_button_value_with_any_action():
    longest = ActionTarget("c" * 128, "w" * 128, "999999abc", "0" * 16).to_value()
    assert longest is not None
    assert ActionTarget.from_value(longest).answer == "0" * 16
    for action in (SHOW_EVIDENCE, RERUN, PUBLISH):
        assert len(report_choice(action, longest)) <= VALUE_MAX


@pytest.mark.parametrize(
    "value",
    [
        '{"cluster_id":"prod-a","workload_id":"w1","answer":"xyz"}',
        '{"cluster_id":"prod-a","workload_id":"w1","answer":7}',
        '{"cluster_id":"prod-a","workload_id":"w1","answer":"' + "0" * 17 + '"}',
    ],
)
def test_a_digest_not_of_ours_is_no_target(value: str):
    assert clicked(THREAD, value) is None


NOW = datetime(2026, 1, 10, 12, 0, tzinfo=UTC)
DAY = 86_400


@pytest.mark.parametrize(
    ("last_age", "earlier_ages", "last_kept", "earlier_kept"),
    [
        pytest.param(None, [None, None], True, ["w1", "w2"], id="kept before times were"),
        pytest.param(60, [60, DAY - 1], True, ["w1", "w2"], id="within the TTL"),
        pytest.param(60, [DAY + 1, 60], True, ["w2"], id="an earlier one past it"),
        pytest.param(DAY + 1, [60, 60], False, ["w1", "w2"], id="the last one past it"),
        pytest.param(30 * DAY, [30 * DAY, 30 * DAY], False, [], id="a DM used every day"),
    ],
)
def test_answers_older_than_the_ttl_are_dropped_whatever_refreshed_the_state(
    last_age: int | None,
    earlier_ages: list[int | None],
    last_kept: bool,  # noqa: FBT001 - a table's column
    earlier_kept: list[str],
):
    def at(age: int | None) -> datetime | None:
        return None if age is None else NOW - timedelta(seconds=age)

    earlier = tuple(
        a.model_copy(update={"answered_at": at(age)})
        for a, age in zip(THREAD.earlier, earlier_ages, strict=True)
    )
    state = THREAD.model_copy(update={"answered_at": at(last_age), "earlier": earlier})
    kept = fresh(state, DAY, NOW)
    assert (kept.last_report is not None) is last_kept
    assert (kept.report_for == "UB") is last_kept
    assert [a.slots.workload_id for a in kept.earlier] == earlier_kept
    assert kept.slots == state.slots, "the thread's slots stay"


async def test_the_store_gives_a_state_without_its_expired_answers():
    store = MemoryStore(ttl_s=DAY)
    key = ThreadKey("slack", "T1", "D1", "")
    old = datetime.now(UTC) - timedelta(seconds=DAY + 60)
    await store.save(key, THREAD.model_copy(update={"answered_at": old}))
    loaded = await store.load(key)
    assert loaded is not None
    assert loaded.last_report is None
    assert clicked(loaded, _target("w3")) is None


def test_an_answer_shown_or_pushed_gets_its_time():
    after, _ = _pushed_beside_the_last()
    assert after.earlier[-1].answered_at is not None
    new = pushed(None, _answer("w5"))
    assert new.answered_at is not None
    stamped = THREAD.model_copy(update={"answered_at": NOW})
    shown = clicked(stamped, _target("w1"))
    assert shown is not None
    assert shown.earlier[-1].answered_at == NOW, "the last one keeps its time when archived"
