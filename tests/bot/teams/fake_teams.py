"""A fake Microsoft side of Teams over real HTTP: identity provider and Bot Connector.

One Starlette app on 127.0.0.1 plays both parts the bot talks to:

- the Bot Framework's identity side: OpenID metadata (`/openid`), its `jwks_uri` (`/keys`)
  with an RSA key generated here and the channels it endorses, and the token endpoint
  (`/token`, client credentials); `FakeTeams.token(...)` signs real RS256 inbound tokens with
  that key (or with a forged one). The metadata and keys can be held back (`hold`: a slow
  endpoint), fail (`fail_next`) or roll over (`rotate`);
- the Bot Connector at `serviceUrl` (`/v3/conversations/...`): it records every activity
  posted, every update (PUT), member lookup and 1:1 conversation creation, and answers as
  the connector does (an activity ID, the member record from `members`). A send can be held
  too: recorded (in the conversation) at once, answered to the bot only when released.

Tests wait for calls with `wait_for` (a condition, never a sleep).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, unquote

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

__all__ = ["APP_ID", "BOT_ID", "ISSUER", "TENANT", "Call", "FakeTeams", "new_key"]

APP_ID = "00000000-0000-0000-0000-00000000b07a"
BOT_ID = f"28:{APP_ID}"
TENANT = "tenant-acme"
ISSUER = "https://api.botframework.com"
PASSWORD = "teams-e2e-password"


def _raw_path(request: Request) -> str:
    """The path as sent (percent-encoding kept), to check how the bot encodes IDs."""
    raw = request.scope.get("raw_path")
    return raw.decode() if isinstance(raw, bytes) else request.url.path


#: Distinct keys a test may hold at once: the fake's, the one it rolls over to, a stranger's.
_KEYS = 3
_pool: list[rsa.RSAPrivateKey] = []
_handed = itertools.count()


def new_key() -> rsa.RSAPrivateKey:
    """A 2048-bit RSA key other than the last two handed out.

    Keys come round from a pool of three made once per process: making one costs ~30 ms of
    CPU, and each test's fake and bot are new, so a key seen by an earlier test is unknown.
    """
    index = next(_handed) % _KEYS
    if index == len(_pool):
        _pool.append(rsa.generate_private_key(public_exponent=65537, key_size=2048))
    return _pool[index]


@dataclass(frozen=True)
class Call:
    """One request the fake connector received."""

    kind: str  # "send", "update", "member", "create", "token", "openid", "keys"
    path: str
    conversation: str
    body: dict[str, Any]
    authorization: str
    activity_id: str = ""

    @property
    def card(self) -> dict[str, Any]:
        """The Adaptive Card of an activity (its first attachment's content)."""
        attachments = self.body.get("attachments") or [{}]
        return dict(attachments[0].get("content") or {})

    @property
    def texts(self) -> list[str]:
        """Every text shown: a plain message's `text`, then each text in the card's body."""
        top = self.body.get("text")
        shown = [n["text"] for n in _nodes(self.card.get("body")) if isinstance(n.get("text"), str)]
        return [top, *shown] if isinstance(top, str) else shown

    @property
    def buttons(self) -> list[dict[str, Any]]:
        """The card's `Action.Submit` actions: its body's ActionSets' (a question's), then its own."""
        sets = [n for n in _nodes(self.card.get("body")) if n.get("type") == "ActionSet"]
        actions = [a for s in sets for a in s.get("actions") or []]
        actions += self.card.get("actions") or []
        return [a for a in actions if a.get("type") == "Action.Submit"]


def _nodes(node: Any) -> Iterator[dict[str, Any]]:
    """Every object in `node` (a card's body), depth first, in order."""
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _nodes(value)
    elif isinstance(node, list):
        for value in node:
            yield from _nodes(value)


@dataclass
class FakeTeams:
    """The fake identity provider + Bot Connector; `members` maps user IDs to member records."""

    key: rsa.RSAPrivateKey = field(default_factory=new_key)
    kid: str = "key-1"
    members: dict[str, dict[str, Any]] = field(default_factory=dict)
    calls: list[Call] = field(default_factory=list)
    url: str = ""
    endorsements: list[str] = field(default_factory=lambda: ["msteams", "skype"])
    """The channels the signing key endorses, as the Bot Framework's keys list them."""
    failures: dict[str, list[tuple[int, dict[str, str]]]] = field(default_factory=dict)
    """Scripted answers per call kind: `fail_next` queues (status, headers)."""
    held: dict[str, asyncio.Event] = field(default_factory=dict)
    """Call kinds answered only once their event is set (`hold`)."""
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1000))
    _changed: asyncio.Condition = field(default_factory=asyncio.Condition)

    def rotate(self) -> None:
        """Replace the signing key (a key rollover): new key, new `kid`."""
        self.key = new_key()
        self.kid = f"key-{next(self._ids)}"

    def token(
        self,
        *,
        audience: str = APP_ID,
        issuer: str = ISSUER,
        service_url: str | None = None,
        expires_in: int = 3600,
        key: rsa.RSAPrivateKey | None = None,
        kid: str | None = None,
    ) -> str:
        """An inbound token as the Bot Framework signs it (override a claim to break it)."""
        now = int(time.time())
        claims = {
            "iss": issuer,
            "aud": audience,
            "iat": now - 10,
            "nbf": now - 10,
            "exp": now + expires_in,
            "serviceurl": self.url + "/" if service_url is None else service_url,
        }
        return jwt.encode(
            claims, key or self.key, algorithm="RS256", headers={"kid": kid or self.kid}
        )

    def fail_next(self, kind: str, status: int, **headers: str) -> None:
        """Answer the next call of `kind` with `status` (and `headers`), recording it."""
        self.failures.setdefault(kind, []).append((status, headers))

    def hold(self, kind: str) -> asyncio.Event:
        """Answer calls of `kind` (received and recorded at once) only when the event is set."""
        return self.held.setdefault(kind, asyncio.Event())

    def _scripted(self, kind: str) -> Response | None:
        queued = self.failures.get(kind)
        if not queued:
            return None
        status, headers = queued.pop(0)
        return JSONResponse({"error": {"code": "Scripted"}}, status_code=status, headers=headers)

    def shown(self) -> list[dict[str, Any]]:
        """Every activity the bot posted or put in place of another, in order."""
        return [c.body for c in self.calls if c.kind in {"send", "update"}]

    def effects(self) -> list[str]:
        """The kinds of the calls the bot made, in order, but for fetching the signing keys."""
        return [c.kind for c in self.calls if c.kind not in {"openid", "keys"}]

    def of(self, kind: str) -> list[Call]:
        """The calls of one kind, in order."""
        return [c for c in self.calls if c.kind == kind]

    async def wait_for(self, kind: str, count: int = 1, timeout_s: float = 15) -> list[Call]:
        """The first `count` calls of `kind`, once they have arrived."""
        async with asyncio.timeout(timeout_s), self._changed:
            await self._changed.wait_for(lambda: len(self.of(kind)) >= count)
        return self.of(kind)[:count]

    async def _record(self, call: Call) -> None:
        async with self._changed:
            self.calls.append(call)
            self._changed.notify_all()

    # ------------------------------------------------------------------ the HTTP side

    def app(self) -> Starlette:
        """The ASGI app to serve on loopback."""
        return Starlette(
            routes=[
                Route("/openid", self._openid, methods=["GET"]),
                Route("/keys", self._keys, methods=["GET"]),
                Route("/token", self._token, methods=["POST"]),
                Route("/v3/conversations", self._create, methods=["POST"]),
                Route("/v3/conversations/{conv}/activities", self._send, methods=["POST"]),
                Route(
                    "/v3/conversations/{conv}/activities/{activity}",
                    self._update,
                    methods=["PUT"],
                ),
                Route("/v3/conversations/{conv}/members/{user}", self._member, methods=["GET"]),
            ]
        )

    async def _received(self, kind: str, request: Request) -> Response | None:
        """Record an identity call, wait while it is held, then its scripted answer, if any."""
        await self._record(Call(kind, _raw_path(request), "", {}, ""))
        await self._unheld(kind)
        return self._scripted(kind)

    async def _unheld(self, kind: str) -> None:
        """Wait while calls of `kind` are held (`hold`)."""
        if (gate := self.held.get(kind)) is not None:
            await gate.wait()

    async def _openid(self, request: Request) -> Response:
        if (scripted := await self._received("openid", request)) is not None:
            return scripted
        return JSONResponse({"issuer": ISSUER, "jwks_uri": f"{self.url}/keys"})

    async def _keys(self, request: Request) -> Response:
        if (scripted := await self._received("keys", request)) is not None:
            return scripted
        jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(self.key.public_key()))
        key = {**jwk, "kid": self.kid, "use": "sig", "endorsements": self.endorsements}
        return JSONResponse({"keys": [key]})

    async def _token(self, request: Request) -> Response:
        form = {k: v[-1] for k, v in parse_qs((await request.body()).decode()).items()}
        await self._record(Call("token", _raw_path(request), "", form, ""))
        if (scripted := self._scripted("token")) is not None:
            return scripted
        if form.get("client_secret") != PASSWORD or form.get("client_id") != APP_ID:
            return JSONResponse({"error": "invalid_client"}, status_code=401)
        return JSONResponse({"access_token": "outbound-token", "expires_in": 3600})

    async def _body(self, request: Request) -> dict[str, Any]:
        raw = await request.body()
        return json.loads(raw) if raw else {}

    async def _create(self, request: Request) -> Response:
        body = await self._body(request)
        user = body["members"][0]["id"]
        await self._record(
            Call("create", _raw_path(request), "", body, request.headers.get("authorization", ""))
        )
        if (scripted := self._scripted("create")) is not None:
            return scripted
        return JSONResponse({"id": f"a:personal-{user}"})

    async def _send(self, request: Request) -> Response:
        conversation = unquote(request.path_params["conv"])
        activity_id = f"act-{next(self._ids)}"
        auth = request.headers.get("authorization", "")
        body = await self._body(request)
        await self._record(
            Call("send", _raw_path(request), conversation, body, auth, activity_id=activity_id)
        )
        await self._unheld("send")  # shown in the conversation already, answered later
        if (scripted := self._scripted("send")) is not None:
            return scripted
        return JSONResponse({"id": activity_id})

    async def _update(self, request: Request) -> Response:
        conversation = unquote(request.path_params["conv"])
        activity_id = unquote(request.path_params["activity"])
        auth = request.headers.get("authorization", "")
        body = await self._body(request)
        await self._record(
            Call("update", _raw_path(request), conversation, body, auth, activity_id=activity_id)
        )
        if (scripted := self._scripted("update")) is not None:
            return scripted
        return JSONResponse({"id": activity_id})

    async def _member(self, request: Request) -> Response:
        conversation = unquote(request.path_params["conv"])
        user = unquote(request.path_params["user"])
        auth = request.headers.get("authorization", "")
        await self._record(Call("member", _raw_path(request), conversation, {"user": user}, auth))
        if (scripted := self._scripted("member")) is not None:
            return scripted
        member = self.members.get(user)
        if member is None:
            return JSONResponse({"error": {"code": "MemberNotFound"}}, status_code=404)
        return JSONResponse({"id": user, **member})
