# ruff: noqa: INP001 - a standalone script (python3 icons.py), not part of a package
"""Draws the Teams app icons (a magnifier) as PNGs with the standard library: `python3 icons.py`.

Teams wants a 192x192 full-colour icon and a 32x32 outline icon that is white on a
transparent background. The committed PNGs are this script's output.
"""

from __future__ import annotations

import math
import struct
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
HANDLE_END, HANDLE_HALF_WIDTH = 0.38, 0.06  # in the unit square
GREEN = (0x76, 0xB9, 0x00, 0xFF)
WHITE = (0xFF, 0xFF, 0xFF, 0xFF)
CLEAR = (0, 0, 0, 0)


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png(pixels: list[list[tuple[int, int, int, int]]]) -> bytes:
    """An 8-bit RGBA PNG of `pixels` (rows of RGBA tuples)."""
    height, width = len(pixels), len(pixels[0])
    raw = b"".join(b"\0" + bytes(c for px in row for c in px) for row in pixels)
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(raw, 9))
        + _chunk(b"IEND", b"")
    )


def _on_glyph(x: float, y: float) -> bool:
    """A magnifier in the unit square: a ring and a handle down to the right."""
    cx, cy, outer, inner = 0.42, 0.42, 0.27, 0.18
    if inner <= math.hypot(x - cx, y - cy) <= outer:
        return True
    # the handle: a thick segment from the ring towards the bottom-right corner
    t = ((x - cx) + (y - cy)) / 2
    distance = abs((x - cx) - (y - cy)) / math.sqrt(2)
    return outer * 0.7 <= t <= HANDLE_END and distance <= HANDLE_HALF_WIDTH


def icon(size: int, ink: tuple[int, int, int, int], paper: tuple[int, int, int, int]) -> bytes:
    """The glyph in `ink` on `paper`, `size` pixels square, sampled at pixel centres."""
    rows = [
        [ink if _on_glyph((x + 0.5) / size, (y + 0.5) / size) else paper for x in range(size)]
        for y in range(size)
    ]
    return png(rows)


def main() -> None:
    """Write color.png (192x192) and outline.png (32x32) next to this script."""
    (HERE / "color.png").write_bytes(icon(192, WHITE, GREEN))
    (HERE / "outline.png").write_bytes(icon(32, WHITE, CLEAR))


if __name__ == "__main__":
    main()
