"""`POST /api/messages`: the JWT gate on the raw request, then the activity, then the queue.

Order matters: the size cap and the bearer token come first, on nothing but the headers
and raw bytes; a request that fails them is 401 (or 413) and nothing is parsed, logged or
sent (503 when the signing keys cannot be had: the token was not judged). Only then is the
body read (under the size cap) and parsed (nested at most `bot.web.body.MAX_JSON_DEPTH`
levels, else 400), its `serviceUrl` checked against the token's `serviceurl` claim (401 on a
mismatch: a valid token must not send our replies elsewhere), its `channelId` against the
signing key's endorsements (403 when the key does not endorse it, as the Bot Framework
documents), the activity read and taken into the durable work queue (deduplicated and
bounded in one atomic step, `bot.teams.intake`), and Teams gets its 200 at once; a worker,
on any replica, answers it (`bot.teams.work`). A card's `Action.Execute` invoke gets its
invoke response.

A full queue, or the asker's own cap reached, is told to the asker privately, and a wait
their place in the queue: after the 200 (a Starlette background task), so a slow send never
makes Teams deliver the activity again. A refusal claims no dedupe key, so a redelivery of a
refused activity is refused again; its notice is sent once per dedupe key on this replica
(`_Refusals`, bounded). When Redis cannot take the activity, the answer is 503 and
nothing is sent: Teams delivers an activity again when the bot fails to answer it
(documented for a reply later than 15 s; Microsoft also retries some error statuses,
without documenting which), so it is taken then; for a card's invoke, the Teams client
shows the asker the click failed.
"""

from __future__ import annotations

import math
import time
from http import HTTPStatus

import structlog
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response

from bot.conversation.edges import taken_notice
from bot.ops.observe import begin_request, timed
from bot.teams.activity import Inbound, NotForUs, read_activity
from bot.teams.auth import (
    BotClaims,
    InboundVerifier,
    KeysUnavailable,
    TokenRejected,
    channel_endorsed,
    service_url_matches,
)
from bot.teams.connector import TeamsConnector
from bot.teams.intake import dedupe_key, submit
from bot.teams.responder import ReplyTarget, TeamsResponder
from bot.web.body import Refused, check_length, load_json, read_body
from bot.web.refusal import body_refusal, refusal
from bot.work import Intake, QueueUnavailable, WorkQueue

__all__ = ["MAX_BODY_BYTES", "TeamsEndpoint"]

#: Activities are a few KiB; a card submit carries its data. Anything larger is refused.
MAX_BODY_BYTES = 256 * 1024
_INVOKE_DONE = {
    "statusCode": 200,
    "type": "application/vnd.microsoft.activity.message",
    "value": "Got it.",
}


_REJECTED = "teams_request_rejected"


def _refused(status: HTTPStatus, reason: str, **headers: str) -> Response:
    return refusal(_REJECTED, status, reason, headers)


class _Refusals:
    """The dedupe keys of refusals told lately (at most `limit`, each for `ttl_s`)."""

    def __init__(self, ttl_s: float, limit: int = 1024) -> None:
        self._ttl_s, self._limit = ttl_s, limit
        self._until: dict[str, float] = {}

    def first(self, key: str) -> bool:
        """Whether `key`'s refusal is not yet told (and it is counted as told from now)."""
        now = time.monotonic()
        if self._until.get(key, 0.0) > now:
            return False
        self._until.pop(key, None)
        if len(self._until) >= self._limit:
            self._until = {k: t for k, t in self._until.items() if t > now}
            while len(self._until) >= self._limit:  # the oldest told go first
                del self._until[next(iter(self._until))]
        self._until[key] = now + self._ttl_s
        return True


class TeamsEndpoint:
    """The Starlette handler of `/api/messages`: takes activities into the work queue."""

    def __init__(
        self,
        verifier: InboundVerifier,
        connector: TeamsConnector,
        queue: WorkQueue,
        *,
        runai_url: str | None,
        dedupe_ttl_s: int,
        deadline_s: float = 300.0,
    ) -> None:
        """`dedupe_ttl_s`: how long a taken activity is remembered (`replay_window_s`)."""
        self._verifier = verifier
        self._connector = connector
        self._queue = queue
        self._runai_url = runai_url
        self._deadline_s = deadline_s
        self._dedupe_ttl_s = dedupe_ttl_s
        self._refusals = _Refusals(dedupe_ttl_s)

    async def handle(self, request: Request) -> Response:
        """One request: a request ID for its logs, then the gate and the queue; timed as `ack`."""
        begin_request()
        with timed("ack"):
            return await self._gate_then_take(request)

    async def _verified(self, request: Request) -> BotClaims | Response:
        """The token's claims, or the refusal: 413, 401, or 503 when the keys cannot be had."""
        try:
            check_length(request.headers, MAX_BODY_BYTES)
        except Refused as refused:
            return body_refusal(_REJECTED, refused)
        try:
            return await self._verifier.verify(request.headers.get("authorization", ""))
        except TokenRejected as error:
            return _refused(HTTPStatus.UNAUTHORIZED, str(error))
        except KeysUnavailable as error:  # not judged: Teams may deliver it again
            retry_after = str(max(1, math.ceil(error.retry_after_s)))
            return _refused(
                HTTPStatus.SERVICE_UNAVAILABLE, str(error), **{"Retry-After": retry_after}
            )

    async def _gate_then_take(self, request: Request) -> Response:
        """Verify, parse, take into the queue, and answer 200 (a worker answers the asker)."""
        claims = await self._verified(request)
        if isinstance(claims, Response):
            return claims
        try:
            body = load_json(await read_body(request, MAX_BODY_BYTES))
        except Refused as refused:  # 503 (not read) says when to try again
            return body_refusal(_REJECTED, refused)
        if not isinstance(body, dict):
            return _refused(HTTPStatus.BAD_REQUEST, "body is not a JSON object")
        service_url = body.get("serviceUrl")
        if not isinstance(service_url, str) or not service_url_matches(claims, service_url):
            return _refused(HTTPStatus.UNAUTHORIZED, "serviceUrl does not match the token")
        if not channel_endorsed(claims, body.get("channelId")):
            return _refused(HTTPStatus.FORBIDDEN, "channelId is not endorsed by the token's key")
        try:
            inbound = read_activity(body)
        except NotForUs as why:
            structlog.get_logger(__name__).info("teams_activity_ignored", reason=str(why))
            return Response(status_code=HTTPStatus.OK)
        try:
            taken = await submit(
                self._queue,
                inbound,
                dedupe_ttl_s=self._dedupe_ttl_s,
                deadline_s=self._deadline_s,
            )
        except QueueUnavailable as error:
            structlog.get_logger(__name__).warning("teams_not_taken", error=str(error))
            # Not taken, nothing sent: Teams delivers it again, and it is taken then.
            return PlainTextResponse(
                HTTPStatus.SERVICE_UNAVAILABLE.phrase,
                status_code=HTTPStatus.SERVICE_UNAVAILABLE,
                headers={"Retry-After": "5"},
            )
        notice = taken_notice(taken)  # full, their own cap reached, or their place in line
        turned_away = taken.intake in {Intake.FULL, Intake.CAPPED}
        if notice is not None and turned_away and not self._refusals.first(dedupe_key(inbound)):
            notice = None  # a redelivery: told on the first
        told = None if notice is None else BackgroundTask(self._tell, inbound, notice)
        if inbound.invoke:
            return JSONResponse(_INVOKE_DONE, background=told)
        return Response(status_code=HTTPStatus.OK, background=told)

    async def _tell(self, inbound: Inbound, text: str) -> None:
        """Tell the asker privately (a 1:1 chat with the bot); never raises."""
        target = ReplyTarget.of(inbound)
        await TeamsResponder(self._connector, target, runai_url=self._runai_url).tell(text)
