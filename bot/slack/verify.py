"""The gate in front of Bolt: size, timestamp and signature checked on the raw bytes first.

Slack signs `v0:<timestamp>:<raw body>` with the app's signing secret (HMAC-SHA256). Nothing
is parsed, logged or dispatched before that signature matches: a missing or malformed header
or a wrong signature is 401, a body over the cap is 413 (`bot.web.body` refuses it before it
is read in full). Only a verified body is then checked for shape (`bot.slack.payloads`) and
handed to Bolt (`bot.slack.gate`).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from http import HTTPStatus

__all__ = ["MAX_BODY_BYTES", "MAX_SKEW_S", "Rejection", "RequestVerifier"]

#: Slack's payloads are a few KiB; a message shortcut carries the whole message (at most
#: 40,000 characters of text plus 50 blocks), which stays far below this.
MAX_BODY_BYTES = 1 << 20
#: Slack's own replay window: a request older (or newer) than five minutes is refused.
MAX_SKEW_S = 300
_MAX_TIMESTAMP_DIGITS = 12
_SIGNATURE_PREFIX = "v0="
#: `v0=` and a SHA-256 in lowercase hex, as Slack sends it (one pass of a regex, not a loop).
_SIGNATURE = re.compile(r"v0=[0-9a-f]{64}")


@dataclass(frozen=True)
class Rejection:
    """Why a request was refused: the HTTP status and a reason for the log (never content)."""

    status: HTTPStatus
    reason: str


class RequestVerifier:
    """Checks `X-Slack-Request-Timestamp` and `X-Slack-Signature` against the raw body."""

    def __init__(
        self,
        signing_secret: str,
        *,
        max_body_bytes: int = MAX_BODY_BYTES,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._secret = signing_secret.encode()
        self.max_body_bytes = max_body_bytes
        self._clock = clock

    def verify(self, headers: Mapping[str, str], body: bytes) -> Rejection | None:
        """None when the request is Slack's and fresh; else a 401 (or 413) `Rejection`."""
        if len(body) > self.max_body_bytes:
            return Rejection(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "body over the size cap")
        timestamp = headers.get("x-slack-request-timestamp", "").strip()
        signature = headers.get("x-slack-signature", "").strip()
        if not timestamp or not signature:
            return Rejection(HTTPStatus.UNAUTHORIZED, "signature headers missing")
        if not (
            timestamp.isascii() and timestamp.isdigit() and len(timestamp) <= _MAX_TIMESTAMP_DIGITS
        ):
            return Rejection(HTTPStatus.UNAUTHORIZED, "timestamp malformed")
        if abs(self._clock() - int(timestamp)) > MAX_SKEW_S:
            return Rejection(HTTPStatus.UNAUTHORIZED, "timestamp outside the replay window")
        if not _well_formed(signature):
            return Rejection(HTTPStatus.UNAUTHORIZED, "signature malformed")
        base = b"v0:" + timestamp.encode() + b":" + body
        expected = _SIGNATURE_PREFIX + hmac.new(self._secret, base, hashlib.sha256).hexdigest()
        if not hmac.compare_digest(expected.encode(), signature.encode()):
            return Rejection(HTTPStatus.UNAUTHORIZED, "signature mismatch")
        return None


def _well_formed(signature: str) -> bool:
    return _SIGNATURE.fullmatch(signature) is not None
