"""`CookielessClient`: a cookie a server sets is neither kept nor sent back."""

from __future__ import annotations

import httpx

from diagnosis.http.client import CookielessClient


async def test_a_cookie_the_server_sets_is_never_sent_back():
    sent: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200, headers={"Set-Cookie": "session=abc; Path=/"}, json={})

    transport = httpx.MockTransport(answer)
    async with CookielessClient(base_url="https://runai.invalid", transport=transport) as client:
        first = await client.get("/api/v1/workloads")
        await client.get("/api/v1/workloads")

    assert first.headers["set-cookie"] == "session=abc; Path=/"  # the response is untouched
    assert [r.headers.get("cookie") for r in sent] == [None, None]
    assert not client.cookies
