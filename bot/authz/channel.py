"""The optional channel policy (`CHANNEL_PROJECTS`): which projects a channel may discuss."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

__all__ = ["channel_allows"]


def channel_allows(
    channel_projects: Mapping[str, Sequence[str]], channel: str, project: str
) -> bool:
    """Whether an answer about `project` may be posted publicly in `channel`.

    An unmapped channel allows every project (the asker's own rights still apply). In a
    mapped channel, an answer about another project goes to the asker privately, with a
    button to post it to the thread on purpose. This policy only ever narrows what Run:ai
    allows; it never grants access.
    """
    allowed = channel_projects.get(channel)
    return allowed is None or project in allowed
