"""What the reads of `RunaiClient` share: its session, its paging and the GET helper."""

from __future__ import annotations

import functools
from datetime import datetime
from typing import TYPE_CHECKING, Protocol, TypeVar

from pydantic import BaseModel

from diagnosis.errors import InvalidRequest, UpstreamUnavailable
from diagnosis.http.responses import get_json, json_member, parse_models, shape_error
from diagnosis.moments import ISO, utc_text
from diagnosis.runai.auth import TOKEN_PATH

if TYPE_CHECKING:
    from collections.abc import AsyncGenerator, Sequence

    import httpx

__all__ = [
    "MAX_PAGES",
    "PAGE_SIZE",
    "WORKLOAD_ID",
    "PageCap",
    "Paging",
    "Params",
    "Session",
    "get",
    "iso",
    "metrics_query",
]

#: `get_json` for Run:ai: an httpx error while fetching the token reports operation `token`.
get = functools.partial(get_json, token_path=TOKEN_PATH)

MAX_PAGES = 50
"""Most pages one list call follows before deciding the server's pagination is broken."""
PAGE_SIZE = 100
"""The `limit` of a list call's pages, where no larger one is asked for."""
WORKLOAD_ID = "a workload id"
"""What a workload id is called when it cannot be a path segment."""

_M = TypeVar("_M", bound=BaseModel)
Params = dict[str, str | int]


def iso(moment: datetime) -> str:
    """ISO-8601 in UTC with a `Z` suffix, as the metrics and list filters expect."""
    return utc_text(moment, ISO)


def metrics_query(
    metric_types: Sequence[str], start: datetime, end: datetime, samples: int
) -> Params:
    """A metrics endpoint's query (workloads' and projects' alike): `metricType` comma-joined.

    Raises:
        InvalidRequest: no metric named.
    """
    if not metric_types:
        raise InvalidRequest("metric_types must name at least one metric")
    return {
        "metricType": ",".join(metric_types),
        "start": iso(start),
        "end": iso(end),
        "numberOfSamples": samples,
    }


class Session(Protocol):
    """What a read mixin needs of `RunaiClient`: its HTTP session and its paging."""

    _http: httpx.AsyncClient

    async def _collect(
        self, operation: str, path: str, params: Params, *, key: str, model: type[_M]
    ) -> list[_M]: ...


class PageCap(UpstreamUnavailable):
    """More pages than `max_pages`: pagination is broken, or the list is too long to read."""


class Paging:
    """`RunaiClient`'s paging over its session: follow `next` offsets, bounded."""

    _http: httpx.AsyncClient

    async def _collect(
        self, operation: str, path: str, params: Params, *, key: str, model: type[_M]
    ) -> list[_M]:
        items: list[_M] = []
        async for page in self._pages(operation, path, params, key=key, model=model):
            if page is None:  # `{"pods": null}` is a failed read, not "none"
                raise shape_error(f"`{key}` is null", operation=operation, url=path)
            items.extend(page)
        return items

    async def _pages(
        self,
        operation: str,
        path: str,
        params: Params,
        *,
        key: str,
        model: type[_M],
        max_pages: int = MAX_PAGES,
    ) -> AsyncGenerator[list[_M] | None]:
        """Yield each page's `key` items (None if null), following `next` offsets."""
        offset = 0
        url = path
        for page_number in range(max_pages):
            query = params if page_number == 0 else {**params, "offset": offset}
            body, url = await get(self._http, path, operation=operation, params=query)
            raw = json_member(body, key, operation=operation, url=url)
            yield None if raw is None else parse_models(model, raw, operation=operation, url=url)
            following = body.get("next")
            if following is None or following == "":
                return
            if not isinstance(following, int) or isinstance(following, bool):
                raise shape_error(f"`next` is {following!r}", operation=operation, url=url)
            if following <= offset:
                raise UpstreamUnavailable(
                    f"pagination did not terminate (next offset {following} repeats)",
                    operation=operation,
                    url=url,
                )
            offset = following
        raise PageCap(
            f"pagination did not terminate after {max_pages} pages", operation=operation, url=url
        )
