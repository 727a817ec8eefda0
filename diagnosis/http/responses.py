"""Turning HTTP responses and httpx exceptions into JSON, models, or the one error tree."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

import httpx
from pydantic import BaseModel, ValidationError

from diagnosis.errors import (
    AuthError,
    NotFound,
    UpstreamError,
    UpstreamTimeout,
    UpstreamUnavailable,
)
from diagnosis.http.transport import ATTEMPTS_EXTENSION, RETRYABLE_STATUSES

if TYPE_CHECKING:
    from collections.abc import Collection, Mapping

__all__ = [
    "TOKEN_OPERATION",
    "absolute_url",
    "error_for_exception",
    "error_for_response",
    "error_message",
    "get_json",
    "json_member",
    "parse_model",
    "parse_models",
    "safe_url",
    "shape_error",
]

TOKEN_OPERATION = "token"  # noqa: S105 - an operation name, not a password
"""`UpstreamError.operation` of failures while obtaining a token."""

_M = TypeVar("_M", bound=BaseModel)
_MESSAGE_LIMIT = 200


def safe_url(url: httpx.URL) -> str:
    """The URL as text without any userinfo (the query carries no secrets here)."""
    if not url.userinfo:
        return str(url)  # nothing to drop; rebuilding it would parse it again (~50 us)
    return str(url.copy_with(username=None, password=None))


def error_message(response: httpx.Response) -> str:
    """``": <message>"`` from a Run:ai `{code, message}` error body (truncated), else ``""``."""
    try:
        body = response.json()
    except ValueError:
        return ""
    message = body.get("message") if isinstance(body, dict) else None
    if not isinstance(message, str) or not message.strip():
        return ""
    message = " ".join(message.split())
    if len(message) > _MESSAGE_LIMIT:
        message = message[: _MESSAGE_LIMIT - 1] + "…"
    return f": {message}"


def error_for_response(response: httpx.Response, *, operation: str) -> UpstreamError:
    """The `UpstreamError` for a final, unexpected response status."""
    status = response.status_code
    error: type[UpstreamError] = UpstreamUnavailable
    if status in {401, 403}:
        error, text = AuthError, "Run:ai refused the credentials"
    elif status == httpx.codes.NOT_FOUND:
        error, text = NotFound, "Run:ai has no such resource"
    elif status in RETRYABLE_STATUSES:
        attempts = response.extensions.get(ATTEMPTS_EXTENSION, 1)
        text = "Run:ai kept failing" + (f" after {attempts} attempts" if attempts > 1 else "")
    elif httpx.codes.is_client_error(status):
        error, text = UpstreamError, "Run:ai rejected the request"
    else:
        text = "unexpected answer from Run:ai"
    return error(
        text + error_message(response),
        operation=operation,
        url=safe_url(response.request.url),
        status=status,
    )


def error_for_exception(
    exc: httpx.HTTPError, *, operation: str, token_path: str | None = None
) -> UpstreamError:
    """The `UpstreamError` for an httpx exception; a request to `token_path` reports `token`."""
    kind = type(exc).__name__
    try:
        url = exc.request.url
    except RuntimeError:  # raised before a request existed
        return UpstreamUnavailable(f"request failed ({kind})", operation=operation, url="")
    if token_path is not None and url.path.endswith(token_path):
        operation = TOKEN_OPERATION
    if isinstance(exc, httpx.TimeoutException):
        return UpstreamTimeout(
            f"no answer in time ({kind})", operation=operation, url=safe_url(url)
        )
    return UpstreamUnavailable(
        f"could not reach the server ({kind})", operation=operation, url=safe_url(url)
    )


def absolute_url(
    http: httpx.AsyncClient, path: str, params: Mapping[str, str | int] | None = None
) -> httpx.URL:
    """The URL `http.get(path, params=params)` requests, parsed once instead of three times.

    httpx parses the path, then the path joined to the base URL, then the URL with the query
    merged in: about a tenth of a request's CPU. Joined as httpx joins them (the base URL
    ends in `/`, the path's leading `/` is dropped, the query is httpx's `QueryParams`), the
    text is parsed once. Anything but an absolute path without query or fragment (our clients'
    only kind), or a base URL with userinfo or a query, is left to httpx.
    """
    base = http.base_url
    plain = path.startswith("/") and not path.startswith("//") and not {"?", "#"} & set(path)
    if not plain or base.userinfo or base.query:
        return http.build_request("GET", path, params=params).url
    prefix = f"{base.scheme}://{base.netloc.decode('ascii')}{base.raw_path.decode('ascii')}"
    text = prefix + path.lstrip("/")
    if params:
        text += "?" + str(httpx.QueryParams(params))
    return httpx.URL(text)


async def get_json(
    http: httpx.AsyncClient,
    path: str,
    *,
    operation: str,
    params: Mapping[str, str | int] | None = None,
    ok: Collection[int] = (200,),
    token_path: str | None = None,
) -> tuple[Any, str]:
    """GET `path`; the decoded JSON body and the URL, or the matching `UpstreamError`."""
    try:
        response = await http.get(absolute_url(http, path, params))
    except httpx.HTTPError as exc:
        raise error_for_exception(exc, operation=operation, token_path=token_path) from exc
    if response.status_code not in ok:
        raise error_for_response(response, operation=operation)
    url = safe_url(response.request.url)
    try:
        return response.json(), url
    except ValueError as exc:
        raise shape_error(
            "the body is not JSON", operation=operation, url=url, status=response.status_code
        ) from exc


def json_member(body: Any, key: str, *, operation: str, url: str) -> Any:
    """`body[key]` of a JSON object; `UpstreamUnavailable` when there is no such member."""
    if not isinstance(body, dict) or key not in body:
        raise shape_error(f"no `{key}` member", operation=operation, url=url)
    return body[key]


def parse_model(model: type[_M], raw: Any, *, operation: str, url: str) -> _M:
    """`raw` validated as `model`; `UpstreamUnavailable` when it does not fit."""
    return parse_models(model, [raw], operation=operation, url=url)[0]


def parse_models(model: type[_M], raw: Any, *, operation: str, url: str) -> list[_M]:
    """A JSON array validated item by item as `model`; `UpstreamUnavailable` if it does not fit."""
    if not isinstance(raw, list):
        raise shape_error(
            f"expected a list, got {type(raw).__name__}", operation=operation, url=url
        )
    try:
        return [model.model_validate(item) for item in raw]
    except ValidationError as exc:
        first = exc.errors(include_input=False, include_url=False)[0]
        where = ".".join(str(part) for part in first["loc"]) or "body"
        detail = f"{where}: {first['msg']}"
        raise shape_error(detail, operation=operation, url=url) from exc


def shape_error(
    detail: str, *, operation: str, url: str, status: int | None = None
) -> UpstreamUnavailable:
    """The error for a body that is not the documented shape (values are never quoted)."""
    message = f"the response is not the documented shape ({detail})"
    return UpstreamUnavailable(message, operation=operation, url=url, status=status)
