"""Identifiers, lookback and what counts as missing versus malformed."""

from __future__ import annotations

from datetime import timedelta

import pytest

from diagnosis.errors import InvalidRequest
from diagnosis.request import LOOKBACK_STEPS, DiagnosisRequest, parse_lookback, valid_name

CLUSTER = "71f69d83-ba66-4822-adf5-55ce55efd210"
WORKLOAD = "3f1c2a9e-5b7d-4c1e-9a2f-8d6b0e4c7a11"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("24h", timedelta(hours=24)),
        ("90m", timedelta(minutes=90)),
        ("7d", timedelta(days=7)),
        ("2w", timedelta(weeks=2)),
        (" 30 D ", timedelta(days=30)),
        ("45s", timedelta(seconds=45)),
    ],
)
def test_parse_lookback(text, expected):
    assert parse_lookback(text) == expected


@pytest.mark.parametrize("text", ["", "24", "h", "1.5h", "-1h", "0h", "31d", "5y", "24h;rm"])
def test_parse_lookback_rejects(text):
    with pytest.raises(InvalidRequest, match="lookback"):
        parse_lookback(text)


@pytest.mark.parametrize(
    ("fields", "missing"),
    [
        ({}, ["cluster_id", "workload_id or workload_name"]),
        ({"cluster_id": CLUSTER}, ["workload_id or workload_name"]),
        ({"cluster_id": CLUSTER, "workload_name": "bert-ft"}, ["project"]),
        ({"workload_id": WORKLOAD}, ["cluster_id"]),
        ({"cluster_id": CLUSTER, "workload_id": WORKLOAD}, []),
        ({"cluster_id": CLUSTER, "workload_name": "bert-ft", "project": "nlp"}, []),
        ({"cluster_id": " ", "workload_id": WORKLOAD}, ["cluster_id"]),
    ],
)
def test_missing_names_exactly_what_is_missing(fields, missing):
    """Missing identifiers are an outcome listing each missing piece, never an exception."""
    assert DiagnosisRequest(**fields).missing() == missing


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"cluster_id": "prod-a"}, "cluster ID 'prod-a' is not a UUID"),
        ({"workload_id": "3f1c2a9e"}, "workload ID '3f1c2a9e' is not a UUID"),
        ({"workload_name": "Bert FT"}, "not a valid Run:ai name"),
        ({"project": "nlp;drop"}, "not a valid Run:ai name"),
    ],
)
def test_malformed_identifiers_are_rejected(fields, message):
    with pytest.raises(InvalidRequest, match=message):
        DiagnosisRequest(**fields)


def test_uuid_is_normalised():
    assert DiagnosisRequest(cluster_id=CLUSTER.upper()).cluster_id == CLUSTER


@pytest.mark.parametrize(
    ("lookback", "label"),
    [
        (timedelta(seconds=45), "15m"),
        (timedelta(minutes=15), "15m"),
        (timedelta(minutes=50), "1h"),
        (timedelta(hours=1), "1h"),
        (timedelta(minutes=61), "2h"),
        (timedelta(minutes=90), "2h"),
        (timedelta(hours=4), "6h"),
        (timedelta(hours=24), "24h"),
        (timedelta(hours=25), "2d"),
        (timedelta(hours=36), "2d"),
        (timedelta(hours=60), "3d"),  # "since Saturday" on a Monday
        (timedelta(days=7), "7d"),
        (timedelta(days=14), "14d"),
        (timedelta(days=20), "30d"),
        (timedelta(days=30), "30d"),
    ],
)
def test_a_lookback_is_rounded_up_to_a_step_and_named_as_used(lookback, label):
    """Never less than asked; asks minutes apart are one diagnosis (the report's key)."""
    assert DiagnosisRequest(lookback=lookback).lookback_label() == label


def test_thirty_asks_an_hour_apart_share_a_handful_of_diagnoses():
    asked = {DiagnosisRequest(lookback=timedelta(hours=h)).lookback for h in range(1, 31)}
    assert len(asked) == 7  # 1h, 2h, 3h, 6h, 12h, 24h, 2d; each at least what was asked
    assert all(step in LOOKBACK_STEPS for step in asked)


@pytest.mark.parametrize(
    ("text", "valid"),
    [
        ("train-42", True),
        ("a.b", True),
        ("x", True),
        ("abc\n", False),
        ("abc\n\n", False),
        ("\nabc", False),
        ("abc ", False),
        ("Abc", False),
        ("-abc", False),
        ("abc-", False),
        ("", False),
        ("a" * 253, True),
        ("a" * 254, False),
    ],
)
def test_a_name_is_the_whole_text(text: str, valid: bool):  # noqa: FBT001 - a table column
    """A trailing newline would ride into `filterBy` after a name that looks valid."""
    assert valid_name(text) is valid
