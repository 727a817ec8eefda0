"""The over-time reads of `RunaiClient`: a workload's events, its history and its metrics.

A mixin over the client's session and paging (`diagnosis.runai.session`), so `client.py`
stays about the workload, its spec, pods and nodes. Failures raise the one error tree
(`diagnosis.errors`); a history too long to read whole raises `PartialHistory` with the part
read.
"""

from __future__ import annotations

import contextlib
from datetime import datetime
from itertools import pairwise
from typing import TYPE_CHECKING

from diagnosis.errors import PartialHistory
from diagnosis.http.paths import segment
from diagnosis.http.responses import json_member, parse_models, shape_error
from diagnosis.moments import in_utc, utc_text
from diagnosis.runai.models import Event, HistoryRecord, Measurement
from diagnosis.runai.session import (
    PAGE_SIZE,
    WORKLOAD_ID,
    PageCap,
    Paging,
    Params,
    metrics_query,
)
from diagnosis.runai.session import get as _get

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["HISTORY_MAX_PAGES", "HISTORY_PAGE_SIZE", "HistoryReads"]

HISTORY_PAGE_SIZE = 500
"""The largest `limit` the API accepts (1..500): long histories take few round trips."""
HISTORY_MAX_PAGES = 20
"""History pages read at most (10,000 records); past it the read part is kept (`PartialHistory`)."""


class HistoryReads(Paging):
    """`list_events`, `get_history` and `get_metrics` (see the module docstring)."""

    async def list_events(self, workload_id: str, *, since: datetime) -> list[Event] | None:
        """`get_workload_events`: newest first down to `since`; None when `events` is null."""
        since = in_utc(since)
        path = f"/api/v1/workloads/{segment(workload_id, WORKLOAD_ID)}/events"
        params: Params = {"sortOrder": "desc", "limit": PAGE_SIZE}
        events: list[Event] = []
        pages = self._pages("get_workload_events", path, params, key="events", model=Event)
        async with contextlib.aclosing(pages):
            async for page in pages:
                if page is None:
                    return events or None
                times = [in_utc(e.created_at) for e in page if e.created_at is not None]
                events.extend(
                    e for e in page if e.created_at is None or in_utc(e.created_at) >= since
                )
                if any(t < since for t in times):
                    break
        return events

    async def get_history(self, workload_id: str, *, cutoff: datetime) -> list[HistoryRecord]:
        """`get_workload_history`: records at or after `cutoff`, oldest first.

        Follows pages of `HISTORY_PAGE_SIZE` until `next` is null, or until a page in
        descending time order reaches back past `cutoff` (ascending or unordered pages are all
        followed). Past `HISTORY_MAX_PAGES` pages raises `PartialHistory` carrying the records
        read so far (cutoff applied), so the caller keeps them and names the missing part.
        """
        cutoff = in_utc(cutoff)
        path = f"/api/v1/workloads/{segment(workload_id, WORKLOAD_ID)}/history"
        params: Params = {"limit": HISTORY_PAGE_SIZE}
        records: list[HistoryRecord] = []

        def kept() -> list[HistoryRecord]:
            return sorted(
                (r for r in records if in_utc(r.at) >= cutoff), key=lambda r: in_utc(r.at)
            )

        pages = self._pages(
            "get_workload_history",
            path,
            params,
            key="records",
            model=HistoryRecord,
            max_pages=HISTORY_MAX_PAGES,
        )
        try:
            async with contextlib.aclosing(pages):
                async for page in pages:
                    if page is None:  # `{"records": null}` is a failed read, not "no history"
                        raise shape_error(
                            "`records` is null", operation="get_workload_history", url=path
                        )
                    times = [in_utc(r.at) for r in page]
                    records.extend(page)
                    descending = len(times) > 1 and all(a >= b for a, b in pairwise(times))
                    if descending and times[0] > times[-1] and times[-1] < cutoff:
                        break
        except PageCap as cap:
            times = [in_utc(r.at) for r in records]
            ascending = len(times) > 1 and times[0] < times[-1]
            edge = max(times) if ascending else min(times)
            missing = f"{'newer' if ascending else 'older'} than {utc_text(edge)}"
            raise PartialHistory(
                f"more than {len(records)} records, the read stopped at {HISTORY_MAX_PAGES} pages",
                operation="get_workload_history",
                url=cap.url,
                records=kept(),
                missing=missing,
            ) from cap
        return kept()

    async def get_metrics(
        self,
        workload_id: str,
        *,
        metric_types: Sequence[str],
        start: datetime,
        end: datetime,
        samples: int = 200,
    ) -> list[Measurement]:
        """`get_workload_metrics`: `metricType` comma-joined; 200 and 207 both accepted."""
        operation = "get_workload_metrics"
        params = metrics_query(metric_types, start, end, samples)
        path = f"/api/v1/workloads/{segment(workload_id, WORKLOAD_ID)}/metrics"
        body, url = await _get(self._http, path, operation=operation, params=params, ok=(200, 207))
        raw = json_member(body, "measurements", operation=operation, url=url)
        if raw is None:  # null is a failed read; an empty list is "no samples"
            raise shape_error("`measurements` is null", operation=operation, url=url)
        return parse_models(Measurement, raw, operation=operation, url=url)
