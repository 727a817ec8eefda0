"""Kubernetes memory quantities and byte formatting."""

from __future__ import annotations

import pytest

from diagnosis.quantity import format_bytes, parse_quantity


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("16Gi", 16 * 2**30),
        ("16G", 16 * 10**9),
        ("512M", 512 * 10**6),
        ("512Mi", 512 * 2**20),
        ("1.5Gi", 3 * 2**29),
        ("100Ki", 102400),
        ("1e9", 10**9),
        ("17179869184", 17179869184),
        ("0B", 0),
        ("2k", 2000),
        ("1Ti", 2**40),
        (" 8Gi ", 8 * 2**30),
        (1024, 1024),
        (1.5e3, 1500),
    ],
)
def test_parse_quantity(value, expected):
    assert parse_quantity(value) == expected


@pytest.mark.parametrize("value", [None, "", "lots", "16 GB", "Gi", "-1Gi", "16Xi", True, -5])
def test_unparseable_is_none_not_a_guess(value):
    assert parse_quantity(value) is None


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0, "0 B"),
        (512, "512 B"),
        (2**20 * 512, "512 MiB"),
        (32 * 2**30, "32 GiB"),
        (16 * 10**9, "14.9 GiB"),
        (2**40 * 3, "3 TiB"),
    ],
)
def test_format_bytes(value, text):
    assert format_bytes(value) == text
