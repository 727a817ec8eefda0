"""Untrusted request bodies, for every route: read under a size cap, JSON nested a bounded depth.

Slack and Teams call these only after the request's signature or token is verified, but a
verified body is still input: `json.loads` recurses once per level of nesting (a few thousand
levels are a `RecursionError` on Python 3.11, more on later versions), and so do pydantic's
validators (its guard stops at about 255) and our own readers of nested content (the message
shortcut's Block Kit text). `load_json` therefore measures the nesting on the text first, in
linear time and without recursion, and refuses anything deeper than `MAX_JSON_DEPTH`, so no
later step ever meets more. A refusal says what was wrong, never what the body said.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from http import HTTPStatus
from typing import Any

from starlette.requests import ClientDisconnect, Request

from bot.errors import BotError

__all__ = [
    "BODY_BUDGET_BYTES",
    "MAX_JSON_DEPTH",
    "BodyBudget",
    "Refused",
    "check_length",
    "load_json",
    "read_body",
]

#: Slack's deepest payloads (rich text in a shortcut's message) and Teams' activities nest
#: about a dozen levels; four times that still leaves every later step far from its limit.
MAX_JSON_DEPTH = 64
#: A JSON string, escapes included (unrolled, so it never backtracks): what it holds nests nothing.
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_A_BRACKET = bytes(b for b in range(256) if b not in b"[]{}")
_ONE_KIND = bytes.maketrans(b"{}", b"[]")


#: The most request-body bytes one process holds while reading bodies, all requests together.
#: A Slack body can only be verified once it is whole, so without this 1,024 connections of
#: 1 MiB each would be a gibibyte buffered before any signature was checked. Real bodies are a
#: few KiB: this is thousands of them, or 32 of the largest at once.
BODY_BUDGET_BYTES = 32 * 1024 * 1024


class BodyBudget:
    """Bytes of request bodies being read, across the process's requests (one event loop)."""

    def __init__(self, limit: int = BODY_BUDGET_BYTES) -> None:
        self.limit = limit
        self.used = 0

    def take(self, size: int) -> bool:
        """Count `size` more bytes; False (nothing counted) when that would pass the limit."""
        if self.used + size > self.limit:
            return False
        self.used += size
        return True

    def give_back(self, size: int) -> None:
        """Stop counting `size` bytes (their body was read, or refused)."""
        self.used -= size


#: The process's budget (`read_body`'s default).
IN_FLIGHT = BodyBudget()


class Refused(BotError):
    """A body the bot will not handle: the status to answer and a reason for the log.

    The reason is a predicate ("is not JSON"), for the caller to name what it read.
    """

    def __init__(self, status: HTTPStatus, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


def check_length(headers: Mapping[str, str], limit: int) -> None:
    """Refuse a body whose `Content-Length` already says it is over `limit`, before reading it.

    Raises:
        Refused: 413.
    """
    declared = headers.get("content-length", "").strip()
    if declared.isdigit() and int(declared) > limit:
        raise Refused(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "over the size cap")


async def read_body(request: Request, limit: int, budget: BodyBudget = IN_FLIGHT) -> bytes:
    """The raw body, read as it arrives, refused as soon as it grows past `limit` bytes.

    Raises:
        Refused: 413 over the cap (whatever `Content-Length` said); 503 when the process is
            already reading `budget.limit` bytes of bodies (the sender tries again later); 400
            when the client went away before the body ended (the server cuts off a body that
            arrives too slowly).
    """
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise Refused(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "over the size cap")
            if not budget.take(len(chunk)):
                size -= len(chunk)
                raise Refused(HTTPStatus.SERVICE_UNAVAILABLE, "not read: too many bodies at once")
            chunks.append(chunk)
    except ClientDisconnect:
        raise Refused(HTTPStatus.BAD_REQUEST, "ended early: the client went away") from None
    finally:
        budget.give_back(sum(len(c) for c in chunks))
    return b"".join(chunks)


def load_json(document: str | bytes, *, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """The value of a JSON document (bytes are UTF-8) that nests at most `max_depth` levels.

    Raises:
        Refused: 400.
    """
    if isinstance(document, bytes):
        try:
            document = document.decode("utf-8")
        except UnicodeDecodeError:
            raise Refused(HTTPStatus.BAD_REQUEST, "is not UTF-8") from None
    depth = nesting(document, max_depth)
    if depth is None:
        raise Refused(HTTPStatus.BAD_REQUEST, "is not JSON")
    if depth > max_depth:
        raise Refused(HTTPStatus.BAD_REQUEST, f"nests deeper than {max_depth} levels")
    try:
        return json.loads(document)
    except (ValueError, RecursionError):  # RecursionError: only if the measure were wrong
        raise Refused(HTTPStatus.BAD_REQUEST, "is not JSON") from None


def nesting(text: str, limit: int) -> int | None:
    """How deep the arrays and objects of JSON `text` nest, counted up to `limit + 1`.

    None when its brackets do not pair up (which no JSON document does) within that depth.
    Strings are cut out first; each pass over the brackets left removes the innermost pairs,
    one level, so the work is at most `limit + 1` passes over the text, whatever it holds. A
    run of opening brackets as long as the levels still allowed ends it at once: the common
    way to nest deep costs one search, not every pass.
    """
    outside = _STRING.sub("", text).encode("utf-8", "surrogatepass")
    brackets = outside.translate(_ONE_KIND, _NOT_A_BRACKET)
    for depth in range(limit + 1):
        if not brackets:
            return depth
        if b"[" * (limit + 1 - depth) in brackets:
            return limit + 1
        inner = brackets.replace(b"[]", b"")
        if len(inner) == len(brackets):
            return None
        brackets = inner
    return limit + 1
