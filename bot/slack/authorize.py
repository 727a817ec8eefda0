"""`auth.test` once per process, not once per request: Bolt's `authorize` and the identity lookup.

Bolt's built-in single-workspace authorization calls `auth.test` on the first request and
keeps the answer, but concurrent first requests each find nothing kept and each call it
(3-10 calls in a cold-start storm). `AuthTest` calls it once: the first caller under a
lock, everyone else waits for that answer, and a failed call is not kept (the next caller
tries again). Its `authorize` sets `context.bot_user_id`, `bot_id` and the token from it
exactly as Bolt's own would; `SlackIdentify` reads the installing team from the same answer.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from slack_bolt.authorization import AuthorizeResult
from slack_sdk.web.async_client import AsyncWebClient
from slack_sdk.web.async_slack_response import AsyncSlackResponse

from bot.slack.session import SharedSessionClient

__all__ = ["AuthTest", "tokenless_twin"]

Authorize = Callable[..., Awaitable[AuthorizeResult]]


def tokenless_twin(client: AsyncWebClient) -> AsyncWebClient:
    """`client` without its token, for Bolt: with `authorize`, the token comes from there.

    The twin calls through `client`'s session: the process's shared one (`bot.slack.session`).
    """
    if isinstance(client, SharedSessionClient):
        return SharedSessionClient(
            client.shared,
            base_url=client.base_url,
            timeout=client.timeout,
            retry_handlers=list(client.retry_handlers),
        )
    return AsyncWebClient(
        base_url=client.base_url,
        timeout=client.timeout,
        session=client.session,
        retry_handlers=list(client.retry_handlers),
    )


class AuthTest:
    """The bot token's `auth.test`, asked once per process through `client`."""

    def __init__(self, client: AsyncWebClient) -> None:
        self._client = client
        self._lock = asyncio.Lock()
        self._answer: AsyncSlackResponse | None = None

    @property
    def answered(self) -> bool:
        """Whether `auth.test` has answered this process (and so is not asked again)."""
        return self._answer is not None

    async def answer(self) -> AsyncSlackResponse:
        """`auth.test`'s answer; raises `SlackApiError` (and is asked again next time)."""
        if self._answer is None:
            async with self._lock:
                if self._answer is None:  # another caller may have asked while this one waited
                    self._answer = await self._client.auth_test()
        return self._answer

    def authorize(self) -> Authorize:
        """An `authorize` for `AsyncApp(authorize=...)` (Bolt passes arguments by name)."""

        async def authorize(user_id: str | None) -> AuthorizeResult:
            answer = await self.answer()
            return AuthorizeResult(
                enterprise_id=answer.get("enterprise_id"),
                team_id=answer.get("team_id"),
                bot_id=answer.get("bot_id"),
                bot_user_id=answer.get("user_id"),
                bot_token=self._client.token,
                bot_scopes=answer.headers.get("x-oauth-scopes"),
                user_id=user_id,
            )

        return authorize
