"""An identifier becomes exactly one path segment, or the request is refused."""

from __future__ import annotations

import pytest

from diagnosis.errors import InvalidRequest
from diagnosis.http.paths import segment


@pytest.mark.parametrize(
    ("value", "sent"),
    [
        ("training-job-42", "training-job-42"),
        ("a/b", "a%2Fb"),  # not a second segment
        ("x?y#z", "x%3Fy%23z"),  # not a query or a fragment
        ("%2e%2e", "%252e%252e"),  # an escaped dot segment stays text
        ("...", "..."),  # only `.` and `..` are dot segments
        ("f0658dcc-8ddb-493b-b983-99894f206aea", "f0658dcc-8ddb-493b-b983-99894f206aea"),
    ],
)
def test_an_identifier_is_one_escaped_segment(value: str, sent: str) -> None:
    assert segment(value, "a name") == sent


@pytest.mark.parametrize("value", ["", "   ", ".", ".."])
def test_an_empty_or_dot_segment_is_refused(value: str) -> None:
    with pytest.raises(InvalidRequest, match="a workload id must not be"):
        segment(value, "a workload id")
