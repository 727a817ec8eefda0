"""The channel policy (`CHANNEL_PROJECTS`): which projects a channel may discuss publicly."""

from __future__ import annotations

import pytest

from bot.authz import channel_allows

CHANNELS = {"C-NLP": ["nlp"], "C-ML": ["ml-team", "vision"]}


@pytest.mark.parametrize(
    ("channel", "project", "public"),
    [
        ("C-NLP", "nlp", True),
        ("C-NLP", "vision", False),
        ("C-ML", "vision", True),
        ("C-ML", "nlp", False),
        ("C-OTHER", "nlp", True),
    ],
)
def test_channel_policy(channel, project, public):
    assert channel_allows(CHANNELS, channel, project) is public
