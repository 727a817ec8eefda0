"""A refused request: its size judged on the headers first, its answer the same on every route."""

from __future__ import annotations

from http import HTTPStatus

import pytest
from structlog.testing import capture_logs

from bot.web.body import Refused, check_length
from bot.web.refusal import body_refusal, refusal

LIMIT = 1024


@pytest.mark.parametrize(
    ("declared", "refused"),
    [
        (None, False),  # chunked, or no body: judged as it is read
        ("", False),
        (str(LIMIT), False),
        (f" {LIMIT} ", False),
        (str(LIMIT + 1), True),
        (f" {LIMIT + 1}", True),
        ("1e9", False),  # not a length: the read itself enforces the cap
        ("-5", False),
    ],
)
def test_a_declared_length_over_the_cap_is_refused_before_reading(
    declared: str | None,
    refused: bool,  # noqa: FBT001 - a table column
):
    headers = {} if declared is None else {"content-length": declared}
    if not refused:
        check_length(headers, LIMIT)
        return
    with pytest.raises(Refused) as caught:
        check_length(headers, LIMIT)
    assert (caught.value.status, caught.value.reason) == (
        HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
        "over the size cap",
    )


@pytest.mark.parametrize(
    ("status", "retry_after"),
    [
        (HTTPStatus.REQUEST_ENTITY_TOO_LARGE, None),
        (HTTPStatus.BAD_REQUEST, None),
        (HTTPStatus.SERVICE_UNAVAILABLE, "1"),  # not read for lack of room: sent again
    ],
)
def test_a_refused_body_is_answered_with_its_phrase_and_logged_with_its_reason(
    status: HTTPStatus, retry_after: str | None
):
    with capture_logs() as logs:
        response = body_refusal("x_request_rejected", Refused(status, "is what it is"))
    assert (response.status_code, bytes(response.body)) == (status, status.phrase.encode())
    assert response.headers.get("retry-after") == retry_after
    [logged] = logs
    assert (logged["event"], logged["status"], logged["reason"]) == (
        "x_request_rejected",
        int(status),
        "body is what it is",
    )


def test_a_refusal_carries_the_headers_it_is_given_and_never_the_request():
    with capture_logs() as logs:
        response = refusal(
            "y_request_rejected", HTTPStatus.UNAUTHORIZED, "bad token", {"WWW-Authenticate": "B"}
        )
    assert (response.status_code, bytes(response.body)) == (401, b"Unauthorized")
    assert response.headers["www-authenticate"] == "B"
    assert logs == [
        {
            "event": "y_request_rejected",
            "status": 401,
            "reason": "bad token",
            "log_level": "warning",
        }
    ]
