"""`LimitedTransport`: every Run:ai request, the token POST included, holds a limiter slot."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx

from diagnosis import NO_LIMIT, RunaiClient, RunaiConfig
from diagnosis.http.limit import LimitedTransport

WORKLOAD = {"id": "w-1", "name": "train-1", "clusterId": "c-1", "phase": "Failed"}


class Recording:
    """A limiter that records what happened inside and outside its slots."""

    def __init__(self) -> None:
        self.held = 0
        self.log: list[str] = []

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        self.held += 1
        self.log.append("take")
        try:
            yield
        finally:
            self.held -= 1
            self.log.append("give back")


class Chunks(httpx.AsyncByteStream):
    """A response body that notes whether a slot was held while it was read."""

    def __init__(self, limiter: Recording, body: bytes) -> None:
        self._limiter, self._body = limiter, body

    async def __aiter__(self) -> AsyncIterator[bytes]:
        self._limiter.log.append(f"body read holding {self._limiter.held}")
        yield self._body


async def test_each_request_and_its_body_are_sent_within_a_slot():
    limiter = Recording()

    def route(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/api/v1/token":
            return httpx.Response(200, json={"accessToken": "tok", "expiresIn": 3600})
        return httpx.Response(200, stream=Chunks(limiter, json.dumps(WORKLOAD).encode()))

    config = RunaiConfig(url="https://acme.run.ai", client_id="c", client_secret="s", retries=0)
    async with RunaiClient(config, transport=httpx.MockTransport(route), limiter=limiter) as runai:
        workload = await runai.get_workload("w-1")
    assert workload.id == "w-1"
    assert limiter.log == ["take", "give back", "take", "body read holding 1", "give back"]


async def test_no_limit_hands_out_slots_freely():
    async with NO_LIMIT.slot(), NO_LIMIT.slot():
        pass
    inner = httpx.MockTransport(lambda _: httpx.Response(204))
    transport = LimitedTransport(inner, NO_LIMIT)
    response = await transport.handle_async_request(httpx.Request("GET", "https://x/"))
    assert response.status_code == 204
    await transport.aclose()
