"""Fault rules of the simulator: which requests get an injected status, body, header or delay."""

from __future__ import annotations

import asyncio
import json
import re
import threading
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, field_validator
from starlette.responses import JSONResponse, Response

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from starlette.types import Message, Receive

__all__ = ["CANNED_MESSAGES", "FaultRule", "FaultSet", "delay", "error_body", "fault_response"]

#: The canned `Error.message` texts of the Run:ai API, by status code.
CANNED_MESSAGES: dict[int, str] = {
    400: "Required parameter is missing",
    401: "Issuer is not familiar.",
    403: "You do not have sufficient permissions.",
    404: "Resource id not found.",
    405: "Method not allowed.",
    500: "Something went wrong.",
    502: "Bad gateway.",
    503: "Please try again in few minutes.",
    504: "Gateway timeout.",
}

_MALFORMED = b'{"workloads": [{"id": "3f1c2a9e-5b7d-4c1e-9a2f-8d6b0e4c7a11", "name": "tru'


def error_body(status: int, details: str | None = None) -> dict[str, Any]:
    """The Run:ai `Error` body `{code, message, details}` for `status` with its canned message."""
    body: dict[str, Any] = {"code": status, "message": CANNED_MESSAGES.get(status, "Error.")}
    if details is not None:
        body["details"] = details
    return body


class FaultRule(BaseModel):
    """One fault rule, as written in a scenario's `faults` list or passed to `add_fault`.

    `path` is an exact request path or a regular expression that must match the whole path.
    Without `status` and `body` the rule only delays (`latency_ms`) and adds `headers`.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    path: str = Field(min_length=1)
    method: str | None = None
    status: int | None = Field(default=None, ge=100, le=599)
    count: int | None = Field(default=None, ge=0)
    latency_ms: int = Field(default=0, ge=0)
    body: Any = None
    headers: dict[str, str] = Field(default_factory=dict)

    @field_validator("path")
    @classmethod
    def _path_compiles(cls, value: str) -> str:
        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f"not a valid regular expression: {exc}") from exc
        return value

    @field_validator("method")
    @classmethod
    def _method_upper(cls, value: str | None) -> str | None:
        return value.upper() if value is not None else None

    @property
    def has_body(self) -> bool:
        """Whether the rule replaces the response body (a JSON `null` body counts)."""
        return "body" in self.model_fields_set

    @property
    def replaces_response(self) -> bool:
        """Whether the rule answers the request itself instead of passing it on."""
        return self.status is not None or self.has_body

    def matches(self, method: str, path: str) -> bool:
        """Whether this rule applies to a request, ignoring its `count`."""
        if self.method is not None and self.method != method.upper():
            return False
        return path == self.path or re.fullmatch(self.path, path) is not None


class FaultSet:
    """The active fault rules with their remaining counts; safe to use from several threads."""

    def __init__(self, rules: Iterable[FaultRule] = ()) -> None:
        self._lock = threading.Lock()
        self._rules: list[tuple[FaultRule, list[int]]] = []
        for rule in rules:
            self.add(rule)

    def add(self, rule: FaultRule | Mapping[str, Any]) -> FaultRule:
        """Append a rule (validated when given as a mapping) and return it."""
        parsed = rule if isinstance(rule, FaultRule) else FaultRule.model_validate(dict(rule))
        with self._lock:
            self._rules.append((parsed, [0]))
        return parsed

    def clear(self) -> None:
        """Remove every rule."""
        with self._lock:
            self._rules.clear()

    @property
    def rules(self) -> list[FaultRule]:
        """A snapshot of the rules, in the order they are tried."""
        with self._lock:
            return [rule for rule, _ in self._rules]

    def take(self, method: str, path: str) -> FaultRule | None:
        """The first matching rule that still has uses left, consuming one use of it."""
        with self._lock:
            for rule, used in self._rules:
                if not rule.matches(method, path):
                    continue
                if rule.count is not None and used[0] >= rule.count:
                    continue
                used[0] += 1
                return rule
        return None


def fault_response(rule: FaultRule) -> Response:
    """The response a rule that replaces the response (`replaces_response`) sends."""
    status = rule.status if rule.status is not None else 200
    headers = dict(rule.headers)
    if not rule.has_body:
        return JSONResponse(error_body(status, "Injected fault."), status, headers)
    body = rule.body
    if body == "malformed":
        return Response(_MALFORMED, status, headers, media_type="application/json")
    if body == "empty":
        return Response(b"", status, headers, media_type="application/json")
    if body == "null-events":
        body = {"events": None}
    content = json.dumps(body).encode()
    return Response(content, status, headers, media_type="application/json")


async def delay(seconds: float, receive: Receive) -> Receive | None:
    """Hold a request `seconds`, as a slow control plane does, unless its client goes away.

    Returns the `receive` to answer with (what was read while holding it, the body, comes
    first), or None once the client has disconnected: nobody is left to answer, and a
    stopping server does not wait out the rest of the delay.
    """
    read: list[Message] = []

    async def listen() -> None:
        while not read or read[-1]["type"] != "http.disconnect":
            read.append(await receive())

    listening = asyncio.ensure_future(listen())
    try:
        await asyncio.wait({listening}, timeout=seconds)
    finally:
        listening.cancel()
    if read and read[-1]["type"] == "http.disconnect":
        return None

    async def replay() -> Message:
        return read.pop(0) if read else await receive()

    return replay
