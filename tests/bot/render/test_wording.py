"""Words every renderer shares: candidate buttons within Slack's 75, the "more" and "left out" counts."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.render.clean import escaped_len, utf16_len
from bot.render.wording import LABEL_MAX, candidate_labels, left_out_words, more_words
from diagnosis import WorkloadRef

ID_A = "3f1c2a9e-5b7d-4c1e-9a2f-8d6b0e4c7a11"
ID_B = "8497f5be-4265-49e2-9cbe-d13faeece9c5"
ID_A2 = "3f1c2a9e-5b00-4c1e-9a2f-8d6b0e4c7a11"  # shares ID_A's first 12 characters
_ROCKETS = "\U0001f680" * 3  # two UTF-16 units each, as Slack and Teams count them
_CJK = "\U00020000"  # CJK extension B: two units too
_WIDE = f"{_ROCKETS}-llm-finetune-{_CJK * 30}"


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
            [_ref("x" * 30 + "-middle-" + "y" * 25, ID_A, phase="Running")],
            ["xxxxxxxxxxxxxxxxxxxx…yyyyyyyyyyyyyyyyyyy · Running · submitted 11-01 07:19Z"],
            id="a long name is cut in its middle, never the facts",
        ),
        pytest.param(
            [
                _ref(_WIDE, ID_A),
                _ref(_WIDE, ID_B, minute=20),
                _ref(_WIDE, ID_A2, phase="Running", minute=20),
            ],
            [
                f"{_ROCKETS}-llm-finetune-…{_CJK * 10} · Failed · submitted 11-01 07:19Z",
                f"{_ROCKETS}-llm-finetune-…{_CJK * 10} · Failed · submitted 11-01 07:20Z",
                f"{_ROCKETS}-llm-finetune-…{_CJK * 9} · Running · submitted 11-01 07:20Z",
            ],
            id="a name beyond the BMP is measured in UTF-16 units: the facts still fit",
        ),
        pytest.param(
            [_ref(_CJK * 40, ID_A, phase="Running")],
            [f"{_CJK * 10}…{_CJK * 9} · Running · submitted 11-01 07:19Z"],
            id="a surrogate pair is never split: an odd unit is left unused",
        ),
    ],
)
def test_candidate_labels(candidates: list[WorkloadRef], labels: list[str]):
    assert candidate_labels(candidates) == labels
    assert all(utf16_len(label) <= LABEL_MAX for label in labels)


_AMP = "r&d<ml>&co-" * 8  # 88 characters, 208 UTF-16 units once Slack escapes them


@pytest.mark.parametrize(
    ("candidates", "labels"),
    [
        pytest.param(
            [_ref(_AMP, ID_A), _ref(_AMP, ID_B, phase="Running")],
            [
                "r&d<ml>…d<ml>&co- · Failed · submitted 11-01 07:19Z",
                "r&d<ml>…d<ml>&co- · Running · submitted 11-01 07:19Z",
            ],
            id="a name with &, < and > is sized as Slack is sent it: the facts still fit",
        ),
        pytest.param(
            [_ref("q&a", ID_A)],
            ["q&a · Failed · submitted 11-01 07:19Z"],
            id="a name that fits once escaped is kept whole",
        ),
    ],
)
def test_candidate_labels_fit_once_escaped(candidates: list[WorkloadRef], labels: list[str]):
    assert candidate_labels(candidates) == labels
    assert all(escaped_len(label) <= LABEL_MAX for label in labels)


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
