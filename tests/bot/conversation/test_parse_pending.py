"""Stuck, pending, queued or still waiting: a Pending question (`Symptom.PENDING`).

Unless a more specific current symptom, or a past run, is named.
"""

from __future__ import annotations

import pytest

from bot.conversation.parse import Query, parse
from diagnosis import Symptom

PENDING = Symptom.PENDING

TABLE = [
    (
        "why is vit-pretrain-xl in vision still pending on cluster prod-a?",
        Query(cluster="prod-a", workload_name="vit-pretrain-xl", project="vision", symptom=PENDING),
    ),
    (
        "is train-bert in nlp stuck?",
        Query(workload_name="train-bert", project="nlp", symptom=PENDING),
    ),
    (
        "train-bert in nlp is queued",
        Query(workload_name="train-bert", project="nlp", symptom=PENDING),
    ),
    (
        "train-bert in nlp still waiting for GPUs",
        Query(workload_name="train-bert", project="nlp", symptom=PENDING),
    ),
    (
        "why isn't train-bert in nlp scheduled? not yet scheduled after an hour",
        Query(workload_name="train-bert", project="nlp", symptom=PENDING, lookback="1h"),
    ),
    # a more specific current symptom wins; a past run is not a Pending question
    (
        "train-bert in nlp is stuck in ImagePullBackOff",
        Query(workload_name="train-bert", project="nlp", symptom=Symptom.IMAGE_PULL),
    ),
    (
        "train-bert in nlp is stuck starting",
        Query(workload_name="train-bert", project="nlp", symptom=Symptom.STARTUP),
    ),
    ("why was train-bert in nlp pending yesterday?", None),
]


@pytest.mark.parametrize(("text", "expected"), TABLE, ids=[t[:40] for t, _ in TABLE])
def test_stuck_questions_are_pending_questions(text: str, expected: Query | None):
    parsed = parse(text, bot_user_id="UBOT")
    if expected is None:
        assert parsed.symptom is None
    else:
        assert parsed == expected
