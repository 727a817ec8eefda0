"""How the Kubernetes client reads a response body, and names what it could not read."""

from __future__ import annotations

from typing import Any

import httpx

from diagnosis.http.responses import safe_url, shape_error

__all__ = ["NAMED", "kind_of", "response_json", "response_url"]

NAMED = "a Kubernetes namespace, pod, container or node name"


def response_url(response: httpx.Response) -> str:
    """The URL `response` answered, as errors name it (`safe_url`)."""
    return safe_url(response.request.url)


def response_json(response: httpx.Response, operation: str) -> Any:
    """The JSON body of a 200 `response`; a shape error when it is not JSON."""
    try:
        return response.json()
    except ValueError as exc:
        raise shape_error(
            "the body is not JSON", operation=operation, url=response_url(response), status=200
        ) from exc


def kind_of(value: Any) -> str:
    """How a wrong-shaped JSON value is named in an error (never its content)."""
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    return type(value).__name__
