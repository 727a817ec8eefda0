"""`POST /api/messages`: the JWT gate on the raw request, then the activity, then the turn.

Order matters: the size cap and the bearer token come first, on nothing but the headers
and raw bytes; a request that fails them is 401 (or 413) and nothing is parsed, logged or
sent. Only then is the body parsed, its `serviceUrl` checked against the token's
`serviceurl` claim (401 on a mismatch: a valid token must not send our replies elsewhere),
the activity read and claimed (exactly once), and the turn started in the background, so
Teams gets its 200 at once. A card's `Action.Execute` invoke gets its invoke response.
"""

from __future__ import annotations

import asyncio
import json
from http import HTTPStatus

import structlog
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response

from bot.conversation import StoreUnavailable
from bot.conversation.messages import STORE_DOWN
from bot.teams.activity import NotForUs, read_activity
from bot.teams.auth import InboundVerifier, TokenRejected, service_url_matches
from bot.teams.connector import TeamsConnector
from bot.teams.responder import ChartUrl, ReplyTarget, TeamsResponder
from bot.teams.turns import TeamsTurns

__all__ = ["MAX_BODY_BYTES", "TeamsEndpoint"]

#: Activities are a few KiB; a card submit carries its data. Anything larger is refused.
MAX_BODY_BYTES = 256 * 1024
_INVOKE_DONE = {
    "statusCode": 200,
    "type": "application/vnd.microsoft.activity.message",
    "value": "Got it.",
}


def _refused(status: HTTPStatus, reason: str) -> Response:
    structlog.get_logger(__name__).warning(
        "teams_request_rejected", status=int(status), reason=reason
    )
    return PlainTextResponse(status.phrase, status_code=status)


async def _capped_body(request: Request) -> bytes | None:
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


class TeamsEndpoint:
    """The Starlette handler of `/api/messages`; owns the turns it started."""

    def __init__(
        self,
        verifier: InboundVerifier,
        connector: TeamsConnector,
        turns: TeamsTurns,
        *,
        runai_url: str | None,
        chart_url: ChartUrl | None = None,
    ) -> None:
        self._verifier = verifier
        self._chart_url = chart_url
        self._connector = connector
        self._turns = turns
        self._runai_url = runai_url
        self._running: set[asyncio.Task[None]] = set()

    async def handle(self, request: Request) -> Response:
        """Verify, parse, claim, and answer 200 while the turn runs."""
        declared = request.headers.get("content-length", "").strip()
        if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
            return _refused(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "body over the size cap")
        try:
            claims = await self._verifier.verify(request.headers.get("authorization", ""))
        except TokenRejected as error:
            return _refused(HTTPStatus.UNAUTHORIZED, str(error))
        raw = await _capped_body(request)
        if raw is None:
            return _refused(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "body over the size cap")
        try:
            body = json.loads(raw)
        except ValueError:
            return _refused(HTTPStatus.BAD_REQUEST, "body is not JSON")
        if not isinstance(body, dict):
            return _refused(HTTPStatus.BAD_REQUEST, "body is not a JSON object")
        service_url = body.get("serviceUrl")
        if not isinstance(service_url, str) or not service_url_matches(claims, service_url):
            return _refused(HTTPStatus.UNAUTHORIZED, "serviceUrl does not match the token")
        try:
            inbound = read_activity(body)
        except NotForUs as why:
            structlog.get_logger(__name__).info("teams_activity_ignored", reason=str(why))
            return Response(status_code=HTTPStatus.OK)
        responder = TeamsResponder(
            self._connector,
            ReplyTarget.of(inbound),
            runai_url=self._runai_url,
            chart_url=self._chart_url,
        )
        try:
            first = await self._turns.claim(inbound)
        except StoreUnavailable:
            self._start(responder.tell(STORE_DOWN))
            first = False
        if first:
            self._start(self._turns.run(inbound, responder))
        if inbound.invoke:
            return JSONResponse(_INVOKE_DONE)
        return Response(status_code=HTTPStatus.OK)

    def _start(self, work: asyncio.Future[None] | object) -> None:
        task: asyncio.Task[None] = asyncio.ensure_future(work)  # type: ignore[arg-type]
        self._running.add(task)
        task.add_done_callback(self._running.discard)

    async def drain(self, timeout_s: float = 20.0) -> None:
        """Wait (up to `timeout_s`) for the turns still running, at shutdown."""
        if self._running:
            await asyncio.wait(set(self._running), timeout=timeout_s)
