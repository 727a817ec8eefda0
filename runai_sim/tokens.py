"""The simulator's token endpoints (v1 JSON, v2 OAuth2 form) and the tokens it issues.

Tokens are HS256-signed JWTs with `sub`, `iat` and `exp`, signed with a key made per
process, so only tokens this simulator issued (and has not revoked) are accepted.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import math
import secrets
import threading
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from runai_sim.faults import error_body
from runai_sim.scenario_parts import Credentials

__all__ = ["TokenIssuer"]


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _error(status: int, details: str) -> JSONResponse:
    return JSONResponse(error_body(status, details), status)


def _oauth_error(status: int, error: str, description: str) -> JSONResponse:
    return JSONResponse({"error": error, "error_description": description}, status)


def _same(given: Any, expected: str) -> bool:
    """Constant-time comparison that also accepts non-ASCII input (compared as bytes)."""
    return isinstance(given, str) and hmac.compare_digest(given.encode(), expected.encode())


class TokenIssuer:
    """Issues, checks and revokes the simulator's bearer tokens."""

    def __init__(
        self, credentials: Credentials, *, ttl_s: float, clock: Callable[[], float]
    ) -> None:
        self.credentials = credentials
        self.ttl_s = ttl_s
        self._clock = clock
        self._lock = threading.Lock()
        self._tokens: dict[str, float] = {}
        self._key = secrets.token_bytes(32)

    def issue(self, client_id: str) -> str:
        """A JWT access token for `client_id`, valid for `ttl_s` from now."""
        issued = self._clock()
        claims = {
            "iss": "runai-sim",
            "sub": client_id,
            "azp": client_id,
            "iat": int(issued),
            "exp": int(issued) + math.ceil(self.ttl_s),
            "jti": secrets.token_hex(8),
        }
        header = _b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
        payload = _b64(json.dumps(claims, separators=(",", ":")).encode())
        signature = hmac.new(self._key, f"{header}.{payload}".encode(), hashlib.sha256).digest()
        token = f"{header}.{payload}.{_b64(signature)}"
        with self._lock:
            self._tokens[token] = issued + self.ttl_s
        return token

    def revoke(self) -> None:
        """Invalidate every token issued so far."""
        with self._lock:
            self._tokens.clear()

    def problem(self, request: Request) -> str | None:
        """Why the request's bearer token is not acceptable, or None when it is."""
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return "Missing bearer token."
        with self._lock:
            expires = self._tokens.get(token.strip())
        if expires is None:
            return "Token was not issued by this server or was revoked."
        if self._clock() >= expires:
            return "Token has expired."
        return None

    def _credentials_ok(self, client_id: Any, secret: Any) -> bool:
        expected = self.credentials
        return _same(client_id, expected.client_id) and _same(secret, expected.client_secret)

    async def token_v1(self, request: Request) -> Response:
        """`POST /api/v1/token` (JSON, keys matched case-insensitively)."""
        try:
            data = json.loads(await request.body())
        except (ValueError, UnicodeDecodeError):
            data = None
        if not isinstance(data, dict):
            return _error(400, "The body must be a JSON TokenRequest object.")
        fields = {str(key).lower(): value for key, value in data.items()}
        grant = fields.get("granttype")
        if grant != "client_credentials":
            return _error(400, f"Unsupported grantType {grant!r}; use client_credentials.")
        if not self._credentials_ok(fields.get("clientid"), fields.get("clientsecret")):
            return _error(401, "Invalid client credentials.")
        client_id = str(fields["clientid"])
        return JSONResponse(
            {
                "accessToken": self.issue(client_id),
                "idToken": self.issue(client_id),
                "refreshToken": secrets.token_urlsafe(32),
                "expiresIn": math.ceil(self.ttl_s),
            }
        )

    async def token_v2(self, request: Request) -> Response:
        """`POST /api/v2/token` (OAuth2 form, snake_case)."""
        media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if media_type != "application/x-www-form-urlencoded":
            return _oauth_error(400, "invalid_request", "Use application/x-www-form-urlencoded.")
        raw = (await request.body()).decode("utf-8", "replace")
        form = {key: values[0] for key, values in parse_qs(raw, keep_blank_values=True).items()}
        grant = form.get("grant_type")
        if not grant:
            return _oauth_error(400, "invalid_request", "grant_type is required.")
        if grant != "client_credentials":
            return _oauth_error(400, "unsupported_grant_type", f"Grant {grant!r} not supported.")
        if not self._credentials_ok(form.get("client_id"), form.get("client_secret")):
            return _oauth_error(401, "invalid_client", "Client authentication failed.")
        return JSONResponse(
            {
                "access_token": self.issue(form["client_id"]),
                "token_type": "Bearer",
                "expires_in": math.ceil(self.ttl_s),
            }
        )
