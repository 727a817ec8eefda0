"""Bolt's `authorize` for our one workspace: `auth.test` once per process, not once per request.

Bolt's built-in single-workspace authorization calls `auth.test` on the first request and
keeps the answer, but concurrent first requests each find nothing kept and each call it
(3-10 calls in a cold-start storm). This `authorize` does the same thing once: the first
request calls it under a lock, everyone else waits for that answer, and a failed call is
not kept (the next request tries again). `context.bot_user_id`, `bot_id` and the token are
set from it exactly as Bolt's own would.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from slack_bolt.authorization import AuthorizeResult
from slack_sdk.web.async_client import AsyncWebClient
from slack_sdk.web.async_slack_response import AsyncSlackResponse

__all__ = ["shared_auth_test", "tokenless_twin"]

Authorize = Callable[..., Awaitable[AuthorizeResult]]


def tokenless_twin(client: AsyncWebClient) -> AsyncWebClient:
    """`client` without its token, for Bolt: with `authorize`, the token comes from there."""
    return AsyncWebClient(
        base_url=client.base_url,
        timeout=client.timeout,
        retry_handlers=list(client.retry_handlers),
    )


def shared_auth_test(client: AsyncWebClient) -> Authorize:
    """An `authorize` for `AsyncApp` that calls `auth.test` with `client` once per process."""
    lock = asyncio.Lock()
    kept: list[AsyncSlackResponse] = []

    async def authorize(user_id: str | None) -> AuthorizeResult:
        if not kept:
            async with lock:
                if not kept:  # another request may have called it while this one waited
                    kept.append(await client.auth_test())
        answer = kept[0]
        return AuthorizeResult(
            enterprise_id=answer.get("enterprise_id"),
            team_id=answer.get("team_id"),
            bot_id=answer.get("bot_id"),
            bot_user_id=answer.get("user_id"),
            bot_token=client.token,
            bot_scopes=answer.headers.get("x-oauth-scopes"),
            user_id=user_id,
        )

    return authorize
