"""Kubernetes memory quantities: parse `16Gi`, `16G`, `512M`, `1e9`, plain bytes; format bytes.

Binary suffixes (Ki, Mi, Gi, Ti, Pi, Ei) are powers of 1024, decimal ones (k, M, G, T, P,
E) powers of 1000, as in `resource.Quantity`. `16G` is therefore 16,000,000,000 bytes,
about 14.9 GiB — a difference that matters when a peak is compared with a limit.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

__all__ = ["format_bytes", "parse_quantity"]

_SUFFIX = {
    "": 1,
    "k": 10**3,
    "K": 10**3,  # not valid Kubernetes, but common in Run:ai UIs and user input
    "M": 10**6,
    "G": 10**9,
    "T": 10**12,
    "P": 10**15,
    "E": 10**18,
    "Ki": 2**10,
    "Mi": 2**20,
    "Gi": 2**30,
    "Ti": 2**40,
    "Pi": 2**50,
    "Ei": 2**60,
    "B": 1,  # Run:ai renders allocations like "0B"
}
_QUANTITY_RE = re.compile(r"^\s*([+]?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)\s*([a-zA-Z]{0,2})\s*$")


def parse_quantity(value: str | float | None) -> int | None:
    """Return the number of bytes, or None when the value is absent or unparseable.

    Unparseable values yield None rather than an exception: a bad upstream value is a
    gap in the evidence, never a reason to invent a number.
    """
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return int(value) if value >= 0 else None
    match = _QUANTITY_RE.match(value)
    if not match or match.group(2) not in _SUFFIX:
        return None
    try:
        number = Decimal(match.group(1))
    except InvalidOperation:  # pragma: no cover - the regex admits only valid decimals
        return None
    return int(number * _SUFFIX[match.group(2)])


def format_bytes(value: int) -> str:
    """Format bytes in binary units with at most one decimal: `32 GiB`, `14.9 GiB`, `512 MiB`."""
    units = ("B", "KiB", "MiB", "GiB", "TiB", "PiB")
    step = 1024
    amount = float(value)
    for unit in units:
        if abs(amount) < step or unit == units[-1]:
            text = f"{amount:.1f}".rstrip("0").rstrip(".")
            return f"{text} {unit}"
        amount /= step
    raise AssertionError("unreachable")  # pragma: no cover
