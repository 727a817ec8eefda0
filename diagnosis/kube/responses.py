"""What the Kubernetes client's reads share: its GET, and reading and naming a response body."""

from __future__ import annotations

from typing import Any, Protocol

import httpx

from diagnosis.http.responses import safe_url, shape_error

__all__ = ["NAMED", "KubeGet", "kind_of", "response_json", "response_url"]


class KubeGet(Protocol):
    """What the client's mixins (events, scheduler objects) need of `KubeClient`: its GET."""

    async def _get(
        self,
        path: str,
        *,
        operation: str,
        params: dict[str, str | int] | None = None,
        accept: str = "application/json",
    ) -> httpx.Response:
        """GET `path` (appended to the base URL); a 200 response or the matching error."""
        ...


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
