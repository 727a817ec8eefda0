"""Run:ai list semantics: filterBy, sortBy/sortOrder and offset/limit/next."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from starlette.datastructures import QueryParams

__all__ = [
    "OPERATORS",
    "FieldSpec",
    "Filter",
    "QueryError",
    "apply_filters",
    "int_param",
    "item_datetime",
    "page",
    "parse_bool",
    "parse_datetime",
    "parse_descending",
    "parse_filters",
    "parse_page",
    "parse_sort",
    "sort_items",
]

OPERATORS = ("==", "!=", "<=", ">=", "=@", "!@", "=^", "=$")
_DATE_OPERATORS = frozenset({"==", "!=", "<=", ">="})
_NEGATED = {"!=": "==", "!@": "=@"}
_OP_RE = "|".join(re.escape(op) for op in OPERATORS)
_TERM_START = re.compile(rf"^[A-Za-z][A-Za-z0-9_]*({_OP_RE})")


class QueryError(ValueError):
    """A query parameter the real API would answer with 400."""

    def __init__(self, details: str, message: str = "Bad request") -> None:
        super().__init__(details)
        self.message = message
        self.details = details


def parse_datetime(value: str) -> datetime:
    """ISO-8601 text as an aware datetime (naive and date-only values are taken as UTC)."""
    parsed = datetime.fromisoformat(value)
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


@dataclass(frozen=True)
class FieldSpec:
    """How a filterable/sortable field is read from a body and compared."""

    kind: Literal["str", "num", "date"]
    get: Callable[[Mapping[str, Any]], Any]


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def item_datetime(value: Any) -> datetime | None:
    """A stored item's timestamp as a datetime; None when it is missing or malformed."""
    if not isinstance(value, str):
        return None
    try:
        return parse_datetime(value)
    except ValueError:
        return None


def _compare(left: Any, op: str, right: Any) -> bool:
    if op == "==":
        return bool(left == right)
    if op == "<=":
        return bool(left <= right)
    return bool(left >= right)


_TEXT_TESTS: dict[str, Callable[[str, str], bool]] = {
    "=@": lambda text, wanted: wanted in text,
    "=^": str.startswith,
    "=$": str.endswith,
}


@dataclass(frozen=True)
class Filter:
    """One parsed `filterBy` term `<field><op><value>`."""

    field: str
    op: str
    value: str
    spec: FieldSpec

    @cached_property
    def exact(self) -> bool:
        """Whether this term is an exact text match (`name==x`): cheap, and the most selective."""
        return self.op == "==" and self.spec.kind == "str"

    def matches(self, item: Mapping[str, Any]) -> bool:
        """Whether `item` passes this term; list-valued fields pass when any element does."""
        raw = self.spec.get(item)
        if self.exact and not isinstance(raw, list):  # what `_test` decides, without its steps
            return raw is not None and str(raw) == self.value
        values = raw if isinstance(raw, list) else [raw]
        positive = _NEGATED.get(self.op)
        if positive is not None:
            return not any(self._test(value, positive) for value in values)
        return any(self._test(value, self.op) for value in values)

    def _test(self, value: Any, op: str) -> bool:
        if value is None:
            return False
        if self.spec.kind == "date":
            when = item_datetime(value)
            return when is not None and _compare(when, op, parse_datetime(self.value))
        if self.spec.kind == "num" and op in _DATE_OPERATORS:
            number = _number(value)
            return number is not None and _compare(number, op, float(self.value))
        text_test = _TEXT_TESTS.get(op)
        if text_test is not None:
            return text_test(str(value), self.value)
        return _compare(str(value), op, self.value)


def _split_terms(raw: Sequence[str]) -> list[str]:
    """Comma-joined and repeated `filterBy` values as terms; a comma inside a value is kept."""
    terms: list[str] = []
    for param in raw:
        for piece in param.split(","):
            if terms and not _TERM_START.match(piece):
                terms[-1] += "," + piece
            else:
                terms.append(piece)
    return [term for term in terms if term]


def parse_filters(raw: Sequence[str], fields: Mapping[str, FieldSpec]) -> list[Filter]:
    """Parse `filterBy` values against the endpoint's documented fields (AND-combined)."""
    names = "|".join(re.escape(name) for name in sorted(fields, key=len, reverse=True))
    pattern = re.compile(rf"^({names})({_OP_RE})(.+)$", re.DOTALL)
    filters: list[Filter] = []
    for term in _split_terms(raw):
        found = pattern.match(term)
        if found is None:
            raise QueryError(f"Invalid filterBy term {term!r}; fields: {', '.join(sorted(fields))}")
        name, op, value = found.groups()
        spec = fields[name]
        if spec.kind == "date":
            if op not in _DATE_OPERATORS:
                raise QueryError(f"Operator {op} cannot be used with date field {name}")
            if item_datetime(value) is None:
                raise QueryError(f"Invalid date {value!r} in filterBy term {term!r}")
        if spec.kind == "num" and op in _DATE_OPERATORS and _number(value) is None:
            raise QueryError(f"Invalid number {value!r} in filterBy term {term!r}")
        filters.append(Filter(name, op, value, spec))
    return filters


def apply_filters(
    items: Sequence[dict[str, Any]], filters: Sequence[Filter]
) -> list[dict[str, Any]]:
    """The items that pass every filter, in their original order.

    The terms are AND-combined, so they are tested exact matches first: with the bot's
    `name==x,clusterId==…,projectName==…` over 1,000 workloads, most fail at the first.
    """
    terms = sorted(filters, key=lambda term: not term.exact)
    return [item for item in items if all(term.matches(item) for term in terms)]


def _sort_key(spec: FieldSpec, item: Mapping[str, Any]) -> Any:
    value = spec.get(item)
    if isinstance(value, list):
        value = value[0] if value else None
    if value is None:
        return None
    if spec.kind == "date":
        return item_datetime(value)
    if spec.kind == "num":
        return _number(value)
    return str(value)


def sort_items(
    items: Sequence[dict[str, Any]], spec: FieldSpec | None, *, descending: bool
) -> list[dict[str, Any]]:
    """Stable sort by a field; nulls last when ascending and first when descending."""
    if spec is None:
        return list(reversed(items)) if descending else list(items)
    keyed = [(_sort_key(spec, item), item) for item in items]
    present = [pair for pair in keyed if pair[0] is not None]
    missing = [item for key, item in keyed if key is None]
    present.sort(key=lambda pair: pair[0], reverse=descending)
    ordered = [item for _, item in present]
    return missing + ordered if descending else ordered + missing


def parse_sort(
    params: QueryParams, fields: Mapping[str, FieldSpec], *, default_desc: bool = False
) -> tuple[FieldSpec | None, bool]:
    """`sortBy` (one of `fields`, optional) and `sortOrder` (`asc`/`desc`) as (spec, descending)."""
    sort_by = params.get("sortBy")
    if sort_by is not None and sort_by not in fields:
        raise QueryError(f"Invalid sortBy {sort_by!r}; allowed: {', '.join(sorted(fields))}")
    descending = parse_descending(params, default_desc=default_desc)
    return (fields[sort_by] if sort_by is not None else None), descending


def parse_descending(params: QueryParams, *, default_desc: bool = False) -> bool:
    """`sortOrder` (`asc`/`desc`) as "descending?"."""
    order = params.get("sortOrder")
    if order is not None and order not in ("asc", "desc"):
        raise QueryError(f"Invalid sortOrder {order!r}; allowed: asc, desc")
    return default_desc if order is None else order == "desc"


def int_param(params: QueryParams, name: str, default: int, low: int, high: int) -> int:
    """Query parameter `name` as an integer in [low, high]; `default` when absent."""
    raw = params.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise QueryError(f"{name} must be an integer, got {raw!r}") from None
    if not low <= value <= high:
        raise QueryError(f"{name} must be between {low} and {high}, got {value}")
    return value


def parse_page(params: QueryParams) -> tuple[int, int]:
    """`offset` (default 0) and `limit` (default 50, 1..500)."""
    return (
        int_param(params, "offset", 0, 0, 2**31 - 1),
        int_param(params, "limit", 50, 1, 500),
    )


def page(items: Sequence[Any], offset: int, limit: int) -> tuple[list[Any], int | None]:
    """One page of `items` and the `next` offset, or None on the last page."""
    end = offset + limit
    return list(items[offset:end]), (end if end < len(items) else None)


def parse_bool(params: QueryParams, name: str) -> bool:
    """A boolean query parameter (`true`/`false`, default false)."""
    raw = params.get(name)
    if raw is None or raw.lower() == "false":
        return False
    if raw.lower() == "true":
        return True
    raise QueryError(f"{name} must be true or false, got {raw!r}")
