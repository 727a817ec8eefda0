"""Placeholders count as unset, wherever deploy/env.example's words appear in a value."""

from __future__ import annotations

import pytest
from pydantic import SecretStr

from bot.config.base import is_placeholder, plain


@pytest.mark.parametrize(
    ("value", "placeholder"),
    [
        ("", True),
        ("   ", True),
        ("change-me", True),
        ("CHANGEME", True),
        ("xoxb-change-me", True),
        ("xapp-change-me", True),
        ("https://change-me.run.ai", True),
        ("replace-me", True),
        ("your-signing-secret", True),
        ("<secret>", True),
        ("todo", True),
        ("xoxb-", True),
        ("xoxb-1234-5678-abcdef", False),
        ("8f14e45fceea167a5a36dedd4bea2543", False),
        ("https://acme.run.ai", False),
        ("runai-why", False),
    ],
)
def test_is_placeholder(value: str, placeholder: bool):  # noqa: FBT001 - a table column
    assert is_placeholder(value) is placeholder


@pytest.mark.parametrize(
    ("value", "text"),
    [(None, ""), ("  a ", "a"), (SecretStr(" s3cret\n"), "s3cret"), (SecretStr(""), "")],
)
def test_plain_is_the_text_without_blanks(value, text):
    assert plain(value) == text
