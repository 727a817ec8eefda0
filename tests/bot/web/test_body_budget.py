"""Bodies being read share one budget per process: past it, a request is 503, not buffered."""

from __future__ import annotations

import asyncio
from http import HTTPStatus
from typing import Any

import pytest
from starlette.requests import Request

from bot.web.body import BodyBudget, Refused, read_body


def _request(
    chunks: list[bytes], gate: asyncio.Event | None = None, waiting: asyncio.Event | None = None
) -> Request:
    """A request whose body arrives in `chunks`; the last waits for `gate` (saying `waiting`)."""
    pending = list(chunks)

    async def receive() -> dict[str, Any]:
        chunk = pending.pop(0)
        if not pending and gate is not None:
            if waiting is not None:
                waiting.set()
            await gate.wait()
        return {"type": "http.request", "body": chunk, "more_body": bool(pending)}

    return Request({"type": "http", "method": "POST", "headers": []}, receive)


async def test_a_body_within_the_budget_is_read_and_given_back():
    budget = BodyBudget(limit=10)
    assert await read_body(_request([b"abcd", b"efgh"]), 1000, budget) == b"abcdefgh"
    assert budget.used == 0


async def test_bodies_read_together_past_the_budget_are_refused_and_nothing_is_kept():
    budget = BodyBudget(limit=10)
    gate, waiting = asyncio.Event(), asyncio.Event()
    held = _request([b"12345678", b""], gate, waiting)
    first = asyncio.create_task(read_body(held, 1000, budget))
    await waiting.wait()  # its first 8 bytes are counted; the rest has not arrived
    with pytest.raises(Refused) as refused:
        await read_body(_request([b"abc", b"def"]), 1000, budget)
    assert refused.value.status is HTTPStatus.SERVICE_UNAVAILABLE
    assert budget.used == 8  # the refused body's first chunk was given back
    gate.set()
    assert await first == b"12345678"
    assert budget.used == 0


async def test_a_body_over_its_own_cap_gives_its_bytes_back():
    budget = BodyBudget(limit=100)
    with pytest.raises(Refused) as refused:
        await read_body(_request([b"x" * 8, b"x" * 8]), 10, budget)
    assert refused.value.status is HTTPStatus.REQUEST_ENTITY_TOO_LARGE
    assert budget.used == 0
