"""The chart's canvas: the bundled font's characters, exact colours, crisp rules, a palette PNG."""

from __future__ import annotations

import io

import pytest
from PIL import Image, ImageColor

from bot.render.canvas import Canvas, drawable
from bot.render.chart import _COLOURS

WHITE = (255, 255, 255)


@pytest.mark.parametrize(
    ("text", "drawn"),
    [
        ("train-job_42 · 31.6 GiB…", "train-job_42 · 31.6 GiB…"),
        ("训练-job", "??-job"),
        ("naïve\u00a0é", "na?ve??"),
    ],
)
def test_what_the_bundled_font_lacks_is_drawn_as_a_question_mark(text, drawn):
    assert drawable(text) == drawn


def decoded(canvas: Canvas) -> Image.Image:
    png = canvas.png()
    image = Image.open(io.BytesIO(png))
    assert image.mode == "P"
    return image.convert("RGB")


def test_every_colour_drawn_stays_exact():
    canvas = Canvas(len(_COLOURS) * 10, 10, _COLOURS)
    for i, colour in enumerate(_COLOURS):
        canvas.box((i * 10, 0), (i * 10 + 9, 9), colour)
    image = decoded(canvas)
    for i, colour in enumerate(_COLOURS):
        assert image.getpixel((i * 10 + 5, 5)) == ImageColor.getrgb(colour)[:3], colour


def test_a_rule_is_one_crisp_pixel_wide():
    canvas = Canvas(20, 20, ("#666666",))
    canvas.rule((2, 7.4), (17, 7.4), "#666666")
    canvas.rule((12.6, 1), (12.6, 18), "#666666")
    image = decoded(canvas)
    grey = (0x66, 0x66, 0x66)
    assert [image.getpixel((5, y)) for y in (6, 7, 8)] == [WHITE, grey, WHITE]
    assert [image.getpixel((x, 4)) for x in (12, 13, 14)] == [WHITE, grey, WHITE]


def test_a_long_text_is_cut_with_an_ellipsis_to_fit():
    canvas = Canvas(100, 20, ())
    assert canvas.fit("short", 12, 100) == "short"
    cut = canvas.fit("a rather long workload name", 12, 60)
    assert cut.endswith("…")
    assert canvas.text_width(cut, 12) <= 60
    assert "a rather long workload name".startswith(cut.removesuffix("…"))
