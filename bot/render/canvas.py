"""A small raster canvas for the memory chart: Pillow lines, dashes, text and a PNG; headless.

Shapes are drawn `SCALE` times larger and then reduced (each output pixel the mean of a
`SCALE`x`SCALE` block), which smooths slanted lines as anti-aliasing would; text is then
drawn at the output size, anti-aliased by FreeType, on top. Each label is rendered once and
kept (tick values, units and legend entries recur on every chart); rendering text is the
largest cost left. Coordinates given to the canvas are the output image's. The picture is
stored as a palette PNG: every pixel mapped, without dithering, to the nearest of the
canvas's colours, their blends with white and a grey ramp, so the colours drawn stay exact,
the file is about a third of an RGB one, and encoding it is cheap. Text uses the font Pillow
bundles (Aileron, `ImageFont.load_default(size=...)`), never a system font, so the same
calls give the same PNG bytes wherever the pinned Pillow runs; characters that font lacks
are drawn as `?`. Pillow writes no time or software name into the PNG.
"""

from __future__ import annotations

import functools
import io
from collections.abc import Iterable, Sequence
from typing import Literal

from PIL import Image, ImageColor, ImageDraw, ImageFont

__all__ = ["SCALE", "Canvas", "drawable"]

SCALE = 2
Point = tuple[float, float]
Anchor = Literal["la", "ma", "ra", "lm", "rm"]
RGB = tuple[int, int, int]
#: What the bundled font can draw: printable ASCII and the few symbols this chart uses.
_DRAWABLE = frozenset(map(chr, range(0x20, 0x7F))) | frozenset("·…±°")
_WHITE: RGB = (255, 255, 255)
_BLENDS = (0.25, 0.5, 0.75)
_GREYS = 16
_KEPT_TEXTS = 256  # rendered labels kept: ticks, units and legend entries recur on every chart
_APART = 10  # the least distance between two palette entries (RGB, 0-255 a channel)


@functools.cache
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """The bundled font at `size`, shared by the threads that draw charts.

    Pillow calls FreeType holding the GIL (and, in free-threaded builds, a lock per font).
    """
    return ImageFont.load_default(size=size)


@functools.lru_cache(maxsize=_KEPT_TEXTS)
def _lettering(text: str, size: int, anchor: Anchor) -> tuple[Image.Image, int, int]:
    """`text` rendered once as a coverage mask, and its offset from the anchor point."""
    font = _font(size)
    left, top, right, bottom = (round(v) for v in font.getbbox(text, anchor=anchor))
    mask = Image.new("L", (max(1, right - left), max(1, bottom - top)), 0)
    ImageDraw.Draw(mask).text((-left, -top), text, fill=255, font=font, anchor=anchor)
    return mask, left, top


def drawable(text: str) -> str:
    """`text` with every character the bundled font lacks replaced by `?`."""
    return "".join(c if c in _DRAWABLE else "?" for c in text)


def _mix(a: RGB, b: RGB, share: float) -> RGB:
    return (
        round(a[0] + (b[0] - a[0]) * share),
        round(a[1] + (b[1] - a[1]) * share),
        round(a[2] + (b[2] - a[2]) * share),
    )


def _far(entry: RGB, kept: Iterable[RGB]) -> bool:
    """Whether `entry` is far enough from every kept colour to be told apart when mapping."""
    return all(sum((a - b) ** 2 for a, b in zip(entry, k, strict=True)) >= _APART**2 for k in kept)


@functools.cache
def _palette(colours: tuple[str, ...]) -> Image.Image:
    """A palette image: the colours, their blends with white and each other, and greys.

    Pillow maps a pixel to a palette through a coarse cache, which can pick a neighbour of
    an exact colour when two entries are nearly equal: a blend too close to a kept entry is
    left out, so every colour drawn maps to itself.
    """
    rgb = [ImageColor.getrgb(c)[:3] for c in colours]
    kept: list[RGB] = []
    blends = [_mix(c, _WHITE, share) for c in rgb for share in _BLENDS]
    blends += [_mix(a, b, 0.5) for a in rgb for b in rgb if a < b]
    greys = [(g, g, g) for g in range(0, 256, 255 // (_GREYS - 1))]
    for entry in [_WHITE, *rgb, *blends, *greys]:
        if _far(entry, kept):
            kept.append(entry)
    flat = [channel for entry in kept for channel in entry]
    palette = Image.new("P", (1, 1))
    palette.putpalette(flat + flat[:3] * (256 - len(kept)))
    return palette


class Canvas:
    """A white `width`x`height` image to draw on, in output pixels, in `colours` only."""

    def __init__(self, width: int, height: int, colours: Iterable[str]) -> None:
        self.width, self.height = width, height
        self._colours = tuple(colours)
        self._image = Image.new("RGB", (width * SCALE, height * SCALE), "white")
        self._draw = ImageDraw.Draw(self._image)
        self._texts: list[tuple[Point, str, str, int, Anchor]] = []

    @staticmethod
    def _at(point: Point) -> tuple[float, float]:
        return point[0] * SCALE, point[1] * SCALE

    def line(self, points: Sequence[Point], colour: str, width: int = 1) -> None:
        """A polyline through `points`, `width` output pixels wide."""
        at = [self._at(p) for p in points]
        self._draw.line(at, fill=colour, width=width * SCALE, joint="curve")

    def rule(self, start: Point, end: Point, colour: str) -> None:
        """A 1-pixel horizontal or vertical line on whole pixels: crisp, never a blur of two."""
        (x0, y0), (x1, y1) = start, end
        x0, x1, y0, y1 = (
            round(min(x0, x1)),
            round(max(x0, x1)),
            round(min(y0, y1)),
            round(max(y0, y1)),
        )
        corner, opposite = (x0 * SCALE, y0 * SCALE), ((x1 + 1) * SCALE - 1, (y1 + 1) * SCALE - 1)
        self._draw.rectangle([corner, opposite], fill=colour)

    def dashed(self, start: Point, end: Point, colour: str, *, dash: float, gap: float) -> None:
        """A horizontal or vertical line of `dash`-long strokes `gap` apart, 2 pixels wide."""
        (x0, y0), (x1, y1) = start, end
        length = abs(x1 - x0) + abs(y1 - y0)
        dx, dy = (x1 - x0) / length, (y1 - y0) / length
        done = 0.0
        while done < length:
            stroke = min(dash, length - done)
            a = (x0 + dx * done, y0 + dy * done)
            b = (x0 + dx * (done + stroke), y0 + dy * (done + stroke))
            self.line([a, b], colour, width=2)
            done += dash + gap

    def box(self, corner: Point, opposite: Point, fill: str, outline: str | None = None) -> None:
        """A filled rectangle between two corners."""
        self._draw.rectangle(
            [self._at(corner), self._at(opposite)], fill=fill, outline=outline, width=SCALE
        )

    def dot(self, centre: Point, radius: float, colour: str) -> None:
        """A filled circle."""
        x, y = self._at(centre)
        r = radius * SCALE
        self._draw.ellipse([(x - r, y - r), (x + r, y + r)], fill=colour)

    @staticmethod
    def text_width(text: str, size: int) -> float:
        """How wide `text` is drawn at `size`, in pixels."""
        return _font(size).getlength(drawable(text))

    def fit(self, text: str, size: int, width: float) -> str:
        """`text`, cut with `…` to fit in `width` pixels."""
        text = drawable(text)
        if self.text_width(text, size) <= width:
            return text
        while text and self.text_width(text + "…", size) > width:
            text = text[:-1]
        return text.rstrip() + "…"

    def text(self, at: Point, text: str, colour: str, size: int, anchor: Anchor = "la") -> None:
        """`text` placed by `anchor` (Pillow's: left/middle/right, top/middle) at `at`.

        Text goes on top of every shape, whenever it is asked for.
        """
        self._texts.append((at, drawable(text), colour, size, anchor))

    def png(self) -> bytes:
        """The picture at its output size, as a palette PNG."""
        image = self._image.reduce(SCALE)
        for (x, y), text, colour, size, anchor in self._texts:
            mask, left, top = _lettering(text, size, anchor)
            image.paste(colour, (round(x) + left, round(y) + top), mask)
        image = image.quantize(palette=_palette(self._colours), dither=Image.Dither.NONE)
        buffer = io.BytesIO()
        image.save(buffer, format="PNG", compress_level=6)
        return buffer.getvalue()
