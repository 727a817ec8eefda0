"""Kubernetes list selection for the fake API: label and field selectors, `Status` errors.

`selected` applies a request's `labelSelector` and `fieldSelector` as the API server does
(equality terms only); `Indexed` narrows a large list by its first `=` field term first.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from starlette.responses import JSONResponse

if TYPE_CHECKING:
    from starlette.requests import Request

__all__ = ["Fields", "Indexed", "KubeError", "selected", "status_body"]

Fields = Mapping[str, tuple[str, ...]]
_REASONS = {
    400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound",
    405: "MethodNotAllowed", 409: "Conflict", 410: "Expired", 422: "Invalid",
    429: "TooManyRequests", 500: "InternalError", 503: "ServiceUnavailable", 504: "Timeout",
}  # fmt: skip


def status_body(code: int, message: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    """A Kubernetes `Status` failure object; its `reason` follows from `code`."""
    body: dict[str, Any] = {"kind": "Status", "apiVersion": "v1", "metadata": {}}
    body |= {"status": "Failure", "message": message, "reason": _REASONS.get(code, "Unknown")}
    if details is not None:
        body["details"] = dict(details)
    return body | {"code": code}


class KubeError(Exception):
    """A failed Kubernetes request; `response()` is its `Status` body."""

    def __init__(self, code: int, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code, self.message, self.details = code, message, details

    def response(self) -> JSONResponse:
        """The `Status` response for this error."""
        return JSONResponse(status_body(self.code, self.message, self.details), self.code)


def _field(item: Mapping[str, Any], path: tuple[str, ...]) -> str:
    """A field selector value: missing is `""`, booleans are `true`/`false`."""
    value: Any = item
    for key in path:
        value = value.get(key) if isinstance(value, Mapping) else None
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def _terms(raw: str) -> list[tuple[str, str, str]]:
    """`a=b,c!=d,e,!f` as `(key, op, value)` terms; op is `=`, `!=`, `exists` or `!exists`."""
    terms: list[tuple[str, str, str]] = []
    for term in filter(None, (part.strip() for part in raw.split(","))):
        if "(" in term or " in " in term or " notin " in term:
            raise KubeError(400, f"unable to parse requirement: set-based {term!r} not simulated")
        key, op, value = term.partition("!=")
        if not op:
            key, op, value = term.replace("==", "=", 1).partition("=")
        if not op:
            key, op = (term[1:], "!exists") if term.startswith("!") else (term, "exists")
        terms.append((key.strip(), op, value.strip()))
    return terms


def selected(items: Iterable[dict[str, Any]], request: Request, fields: Fields) -> list[Any]:
    """The items matching the request's `labelSelector` and `fieldSelector`."""
    labels = _terms(request.query_params.get("labelSelector", ""))
    field_terms = _terms(request.query_params.get("fieldSelector", ""))
    for key, op, _ in field_terms:
        if key not in fields:
            raise KubeError(400, f"field label not supported: {key}")
        if op not in {"=", "!="}:
            raise KubeError(400, f"invalid field selector: {key!r} needs = or !=")

    def label_ok(have: Mapping[str, Any], key: str, op: str, value: str) -> bool:
        if op in {"exists", "!exists"}:
            return (key in have) == (op == "exists")
        return (have.get(key) == value) == (op == "=")

    def matches(item: Mapping[str, Any]) -> bool:
        have = (item.get("metadata") or {}).get("labels") or {}
        return all(label_ok(have, *term) for term in labels) and all(
            (_field(item, fields[key]) == value) == (op == "=") for key, op, value in field_terms
        )

    return [item for item in items if matches(item)]


class Indexed:
    """A list of objects and, per field path, its items by that field's value.

    A field selector with an `=` term then scans only the items with that value instead of
    the whole list (thousands of events in the benchmark's scenario), in the list's order;
    `selected` still applies every term to them. Each path's table is built on first use.
    """

    def __init__(self, items: list[dict[str, Any]]) -> None:
        self.items = items
        self._by: dict[tuple[str, ...], dict[str, list[dict[str, Any]]]] = {}

    def narrowed(self, request: Request, fields: Fields) -> list[dict[str, Any]]:
        """The items the request's first `=` field term can match (all without one)."""
        for key, op, value in _terms(request.query_params.get("fieldSelector", "")):
            if op == "=" and key in fields:
                return self._having(fields[key], value)
        return self.items

    def _having(self, path: tuple[str, ...], value: str) -> list[dict[str, Any]]:
        table = self._by.get(path)
        if table is None:
            table = {}
            for item in self.items:
                table.setdefault(_field(item, path), []).append(item)
            self._by[path] = table
        return table.get(value, [])
