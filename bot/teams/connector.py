"""The Bot Connector REST calls the bot makes, at the inbound activity's `serviceUrl`.

Four calls, all under `{serviceUrl}/v3/conversations`: send an activity (a reply carries
`replyToId`), update one in place (`PUT …/activities/{id}`), look up a member (`GET
…/members/{userId}`, the asker's e-mail or UPN), and create a 1:1 conversation (for private
replies from a channel or group chat). Each carries the bot's token; a 401 fetches a new token
and tries once more, a 429/502/503/504 is retried (honouring `Retry-After`, capped).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any
from urllib.parse import quote

import httpx
import structlog

from bot.errors import BotError
from bot.teams.token import BotToken

__all__ = ["ConnectorError", "TeamsConnector"]

_RETRIED = frozenset({429, 502, 503, 504})
_ATTEMPTS = 3
_MAX_WAIT_S = 5.0


class ConnectorError(BotError):
    """A Bot Connector call failed; `status` is its HTTP status (0: no answer)."""

    def __init__(self, call: str, status: int) -> None:
        super().__init__(f"Bot Connector {call} failed ({status or 'no answer'})")
        self.call = call
        self.status = status


def _conversation_url(service_url: str, conversation_id: str) -> str:
    return f"{service_url.rstrip('/')}/v3/conversations/{quote(conversation_id, safe='')}"


class TeamsConnector:
    """Bot Connector client; `http` carries the timeouts (and, in tests, the transport)."""

    def __init__(self, http: httpx.AsyncClient, token: BotToken) -> None:
        self._http = http
        self._token = token
        self._log = structlog.get_logger(__name__)

    async def send(
        self,
        service_url: str,
        conversation_id: str,
        activity: dict[str, Any],
        *,
        reply_to: str | None = None,
    ) -> str:
        """Post `activity` to the conversation (in reply to `reply_to`); returns its id."""
        body = {**activity, "replyToId": reply_to} if reply_to else activity
        url = f"{_conversation_url(service_url, conversation_id)}/activities"
        answer = await self._call("send", "POST", url, body)
        return str(answer.get("id") or "")

    async def update(
        self, service_url: str, conversation_id: str, activity_id: str, activity: dict[str, Any]
    ) -> None:
        """Replace activity `activity_id` with `activity`."""
        base = _conversation_url(service_url, conversation_id)
        url = f"{base}/activities/{quote(activity_id, safe='')}"
        await self._call("update", "PUT", url, {**activity, "id": activity_id})

    async def member(self, service_url: str, conversation_id: str, user_id: str) -> dict[str, Any]:
        """The member record of `user_id` in the conversation (`TeamsChannelAccount` JSON)."""
        url = f"{_conversation_url(service_url, conversation_id)}/members/{quote(user_id, safe='')}"
        return await self._call("member", "GET", url, None)

    async def personal_chat(
        self, service_url: str, *, bot_id: str, user_id: str, tenant_id: str
    ) -> str:
        """The id of the bot's 1:1 chat with `user_id` (created, or the existing one)."""
        body = {
            "isGroup": False,
            "bot": {"id": bot_id},
            "members": [{"id": user_id}],
            "tenantId": tenant_id,
            "channelData": {"tenant": {"id": tenant_id}},
        }
        answer = await self._call(
            "create conversation", "POST", f"{service_url.rstrip('/')}/v3/conversations", body
        )
        conversation = answer.get("id")
        if not isinstance(conversation, str) or not conversation:
            raise ConnectorError("create conversation", 200)
        return conversation

    async def _call(
        self, call: str, method: str, url: str, body: dict[str, Any] | None
    ) -> dict[str, Any]:
        renewed = False
        for attempt in range(_ATTEMPTS):
            headers = {"Authorization": f"Bearer {await self._token.get()}"}
            try:
                response = await self._http.request(method, url, json=body, headers=headers)
            except httpx.HTTPError as error:
                self._log.warning("teams_connector_failed", call=call, error=type(error).__name__)
                raise ConnectorError(call, 0) from error
            status = response.status_code
            if status == httpx.codes.UNAUTHORIZED and not renewed:
                self._token.forget()
                renewed = True
                continue
            if status in _RETRIED and attempt + 1 < _ATTEMPTS:
                await asyncio.sleep(_retry_after(response))
                continue
            if status >= httpx.codes.BAD_REQUEST:
                self._log.warning("teams_connector_failed", call=call, status=status)
                raise ConnectorError(call, status)
            return _json_object(response.content)
        raise ConnectorError(call, status)


def _retry_after(response: httpx.Response) -> float:
    value = response.headers.get("retry-after", "")
    try:
        return min(max(float(value), 0.0), _MAX_WAIT_S)
    except ValueError:
        return 1.0


def _json_object(content: bytes) -> dict[str, Any]:
    try:
        body = json.loads(content) if content.strip() else {}
    except (ValueError, RecursionError):  # RecursionError: an answer nested thousands deep
        return {}
    return body if isinstance(body, dict) else {}
