"""Moments in UTC: an upstream time read as UTC, and printed in UTC with its `Z`.

Run:ai and Kubernetes send RFC 3339 times, normally with `Z`; an offset (`+02:00`) is
converted, and a time sent without any offset is taken to be UTC (never the host's local
time). The response models type every time they parse as `UtcTime`, and every printed
time goes through `utc_text`, so no `Z` is ever printed after a time in another zone.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Annotated

from pydantic import AfterValidator

__all__ = ["ISO", "STAMP", "UtcTime", "in_utc", "restated", "utc_text"]

STAMP = "%Y-%m-%d %H:%M:%SZ"
"""How an answer prints a moment: `2025-11-04 08:16:37Z`."""

ISO = "%Y-%m-%dT%H:%M:%SZ"
"""ISO 8601 with `Z`, as upstream query parameters and the JSON want it."""

_RFC3339 = re.compile(
    r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:[Zz]|[+-]\d{2}:\d{2})?"
)


def in_utc(moment: datetime) -> datetime:
    """`moment` in UTC; a naive one (sent without an offset) is taken to be UTC already."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def utc_text(moment: datetime, form: str = STAMP) -> str:
    """`moment` converted to UTC, then printed by `form` (a `strftime` format).

    A printed time of day ends in `Z`, unless the reader is told otherwise (an axis labelled UTC).
    """
    return in_utc(moment).strftime(form)


def restated(text: str) -> str:
    """An RFC 3339 time quoted in upstream text, said again as `utc_text` prints a moment.

    The quote itself stays verbatim in the evidence; this is for the answer's own words. Text
    that is not a date with a time of day (`2025-11-04T11:35:00+02:00`) is returned as is.
    """
    if _RFC3339.fullmatch(text) is None:
        return text
    try:
        return utc_text(datetime.fromisoformat(text.upper()))
    except ValueError:
        return text


UtcTime = Annotated[datetime, AfterValidator(in_utc)]
"""A time a response model parses: converted to UTC (only time fields pay for the check)."""
