"""Words every renderer shares: candidate buttons fitted to each platform, "more", "left out"."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from bot.render.clean import escaped_len, utf16_len
from bot.render.wording import candidate_labels, fit_label, left_out_words, more_words
from diagnosis import WorkloadRef

ID_A = "3f1c2a9e-5b7d-4c1e-9a2f-8d6b0e4c7a11"
ID_B = "8497f5be-4265-49e2-9cbe-d13faeece9c5"
ID_A2 = "3f1c2a9e-5b00-4c1e-9a2f-8d6b0e4c7a11"  # shares ID_A's first 12 characters
_ROCKETS = "\U0001f680" * 3  # two UTF-16 units each, as Slack and Teams count them
_CJK = "\U00020000"  # CJK extension B: two units too
_WIDE = f"{_ROCKETS}-llm-finetune-{_CJK * 30}"
_AMP = "r&d<ml>&co-" * 8  # 88 characters, 208 UTF-16 units once Slack escapes them


def _ref(name: str, wid: str, *, phase: str = "Failed", minute: int = 19) -> WorkloadRef:
    return WorkloadRef(
        id=wid,
        name=name,
        project="ml-team",
        cluster_id="2b7c3d1e-9f4a-4c58-a1d6-5e8f0b3c7d92",
        phase=phase,
        submitted_at=datetime(2025, 11, 1, 7, minute, tzinfo=UTC),
        phase_updated_at=datetime(2025, 11, 4, 9, 6, tzinfo=UTC),
    )


@pytest.mark.parametrize(
    ("candidates", "labels"),
    [
        pytest.param(
            [_ref("training-job-42", ID_A)],
            ["training-job-42 · Failed · submitted 11-01 07:19Z"],
            id="a near miss: its name first",
        ),
        pytest.param(
            [_ref("train-bert", ID_A, minute=59), _ref("train-bert", ID_B, minute=4)],
            [
                "train-bert · Failed · submitted 11-01 07:59Z",
                "train-bert · Failed · submitted 11-01 07:04Z",
            ],
            id="a tie told apart by submission: no ID",
        ),
        pytest.param(
            [_ref("train-bert", ID_A), _ref("train-bert", ID_B), _ref("eval", ID_B[::-1])],
            [
                "train-bert · Failed · submitted 11-01 07:19Z · ID 3f1c2a9e",
                "train-bert · Failed · submitted 11-01 07:19Z · ID 8497f5be",
                "eval · Failed · submitted 11-01 07:19Z",
            ],
            id="twins get a short ID, the rest none",
        ),
        pytest.param(
            [_ref("train-bert", ID_A), _ref("train-bert", ID_A2)],
            [
                "train-bert · Failed · submitted 11-01 07:19Z · ID 3f1c2a9e-5b7",
                "train-bert · Failed · submitted 11-01 07:19Z · ID 3f1c2a9e-5b0",
            ],
            id="as much of the ID as makes them differ",
        ),
        pytest.param(
            [_ref(_AMP, ID_A)],
            [f"{_AMP} · Failed · submitted 11-01 07:19Z"],
            id="the name whole: each platform fits the label to its own button",
        ),
        pytest.param(
            [_ref("a\u200bb\nc", ID_A)],
            ["ab c · Failed · submitted 11-01 07:19Z"],
            id="the name cleaned and on one line",
        ),
    ],
)
def test_candidate_labels(candidates: list[WorkloadRef], labels: list[str]):
    assert candidate_labels(candidates) == labels


_SLACK, _TEAMS = (75, True), (80, False)  # a button's room, and whether it counts entities

#: (the candidate, its button (room, escaped), the label the button shows). Only the name is
#: shortened, in its middle; the facts that tell candidates apart always fit.
FITTED: list[Any] = [
    pytest.param(
        _ref("x" * 30 + "-middle-" + "y" * 25, ID_A, phase="Running"), _SLACK,
        "xxxxxxxxxxxxxxxxxxxx…yyyyyyyyyyyyyyyyyyy · Running · submitted 11-01 07:19Z",
        id="slack: a long name is cut in its middle, never the facts",
    ),
    pytest.param(
        _ref(_WIDE, ID_A), _SLACK,
        f"{_ROCKETS}-llm-finetune-…{_CJK * 10} · Failed · submitted 11-01 07:19Z",
        id="slack: a name beyond the BMP is measured in UTF-16 units: the facts still fit",
    ),
    pytest.param(
        _ref(_CJK * 40, ID_A, phase="Running"), _SLACK,
        f"{_CJK * 10}…{_CJK * 9} · Running · submitted 11-01 07:19Z",
        id="slack: a surrogate pair is never split: an odd unit is left unused",
    ),
    pytest.param(
        _ref(_AMP, ID_A), _SLACK,
        "r&d<ml>…d<ml>&co- · Failed · submitted 11-01 07:19Z",
        id="slack: a name with &, < and > is sized as Slack is sent it",
    ),
    pytest.param(
        _ref(_AMP, ID_A), _TEAMS,
        "r&d<ml>&co-r&d<ml>&co-r…r&d<ml>&co-r&d<ml>&co- · Failed · submitted 11-01 07:19Z",
        id="teams: the same name counted as written keeps what only Slack's entities cost",
    ),
    pytest.param(
        _ref("r&d<ml>&co-" * 3, ID_A), _TEAMS,
        "r&d<ml>&co-r&d<ml>&co-r&d<ml>&co- · Failed · submitted 11-01 07:19Z",
        id="teams: a name Slack must shorten fits whole",
    ),
    pytest.param(
        _ref("q&a", ID_A), _SLACK, "q&a · Failed · submitted 11-01 07:19Z",
        id="slack: a name that fits once escaped is kept whole",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("candidate", "button", "shown"), FITTED)
def test_each_platform_fits_a_candidate_label_by_its_own_count(
    candidate: WorkloadRef, button: tuple[int, bool], shown: str
):
    room, escaped = button
    [label] = candidate_labels([candidate])
    fitted = fit_label(label, room, escaped=escaped)
    assert fitted == shown
    assert (escaped_len if escaped else utf16_len)(fitted) <= room


@pytest.mark.parametrize(
    "label",
    [
        pytest.param("prod-a-" * 30, id="a cluster's name"),
        pytest.param("n · Failed · submitted" + " x" * 60, id="facts of another shape"),
        pytest.param("n" * 10 + " · " + "F" * 200 + " · submitted ?", id="facts past any button"),
    ],
)
def test_a_label_that_is_no_candidates_is_left_to_the_renderer(label: str):
    assert fit_label(label, 75, escaped=True) == label


def test_a_label_without_times_says_so():
    ref = _ref("train-bert", ID_A).model_copy(update={"submitted_at": None, "phase": None})
    assert candidate_labels([ref]) == ["train-bert · ? · submitted ?"]


@pytest.mark.parametrize(
    ("later", "left_out", "words"),
    [
        (1, 0, "1 more evidence line in the thread"),
        (4, 0, "4 more evidence lines in the thread"),
        (0, 1, "1 more evidence line left out (see below)"),
        (0, 3, "3 more evidence lines left out (see below)"),
        (2, 3, "5 more evidence lines: 2 in the thread, 3 left out"),
    ],
)
def test_more_words(later, left_out, words):
    assert (
        more_words(("evidence line", "evidence lines"), later, left_out, "in the thread") == words
    )


@pytest.mark.parametrize(
    ("left", "words"),
    [
        (1, "1 more line was left out to keep the thread short."),
        (7, "7 more lines were left out to keep the thread short."),
    ],
)
def test_left_out_words(left, words):
    assert left_out_words(left) == words
