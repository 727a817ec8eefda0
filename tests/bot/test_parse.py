"""The parser over real phrasings: slash-command syntax and free-text mentions alike."""

from __future__ import annotations

import pytest

from bot.parse import Expecting, Query, parse
from diagnosis import Symptom

W = "3f1c2a9e-5b7d-4c1e-9a2f-8d6b0e4c7a11"
C = "71f69d83-ba66-4822-adf5-55ce55efd210"

PHRASINGS = [
    (
        "why did training-job-42 in ml-team fail on cluster prod-a?",
        Query(cluster="prod-a", workload_name="training-job-42", project="ml-team"),
    ),
    (
        "<@UBOT> why did training-job-42 in ml-team fail on cluster prod-a?",
        Query(cluster="prod-a", workload_name="training-job-42", project="ml-team"),
    ),
    (
        "cluster=prod-a workload=bert-ft project=nlp",
        Query(cluster="prod-a", workload_name="bert-ft", project="nlp"),
    ),
    (f"cluster={C} id={W}", Query(cluster=C, workload_id=W)),
    (f"id={W} lookback=7d", Query(workload_id=W, lookback="7d")),
    (W, Query(workload_id=W)),
    ("train-bert", Query(workload_name="train-bert")),
    ("what killed job bert in project nlp", Query(workload_name="bert", project="nlp")),
    (
        "why is train-bert in nlp crashlooping on cluster prod-a",
        Query(
            cluster="prod-a", workload_name="train-bert", project="nlp", symptom=Symptom.CRASHLOOP
        ),
    ),
    (
        "train-bert in nlp is stuck in ImagePullBackOff",
        Query(workload_name="train-bert", project="nlp", symptom=Symptom.IMAGE_PULL),
    ),
    (
        "why did train-bert in nlp fail with ImagePullBackOff",
        Query(workload_name="train-bert", project="nlp"),
    ),
    ("llm-serve-7 keeps crashing", Query(workload_name="llm-serve-7", symptom=Symptom.CRASHLOOP)),
    (
        "etl-2 in data has a volume mount error",
        Query(workload_name="etl-2", project="data", symptom=Symptom.MOUNT),
    ),
    (
        "why did etl-2 in data fail over the last 3 days",
        Query(workload_name="etl-2", project="data", lookback="3d"),
    ),
    (
        "workload=etl-2 project=data symptom=init",
        Query(workload_name="etl-2", project="data", symptom=Symptom.INIT),
    ),
    ("why did my job fail", Query()),
    ("`train-bert` &amp; friends", Query(workload_name="train-bert")),
]


@pytest.mark.parametrize(("text", "expected"), PHRASINGS, ids=[p[0][:40] for p in PHRASINGS])
def test_phrasings(text, expected):
    assert parse(text, bot_user_id="UBOT") == expected


@pytest.mark.parametrize("text", ["help", "HELP", " --help ", "?", "<@UBOT> help"])
def test_help(text):
    assert parse(text, bot_user_id="UBOT").help


@pytest.mark.parametrize(
    ("text", "expecting", "expected"),
    [
        ("prod-a", Expecting.CLUSTER, Query(cluster="prod-a")),
        (C, Expecting.CLUSTER, Query(cluster=C)),
        ("ml-team", Expecting.PROJECT, Query(project="ml-team")),
        ("train", Expecting.WORKLOAD, Query(workload_name="train")),
        (W, Expecting.WORKLOAD, Query(workload_id=W)),
        ("prod-a", None, Query(workload_name="prod-a")),
        ("it is on cluster prod-b", Expecting.CLUSTER, Query(cluster="prod-b")),
    ],
)
def test_bare_reply_fills_the_slot_that_was_asked_for(text, expecting, expected):
    assert parse(text, expecting=expecting) == expected


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("id=x lookback=soon", "lookback 'soon' is not a duration"),
        ("train-1 symptom=sad", "symptom 'sad' is not one of"),
        ("workload=Bad_Name", "is not a valid workload name"),
    ],
)
def test_malformed_parts_are_reported_not_dropped(text, problem):
    assert any(problem in p for p in parse(text).problems)


def test_other_mentions_are_not_identifiers():
    assert (
        parse("<@U999|alice> says train-bert died", bot_user_id="UBOT").workload_name
        == "train-bert"
    )
