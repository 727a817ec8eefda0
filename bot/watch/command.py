"""Reading `watch nlp on prod-a`, `unwatch nlp on prod-a` and `watches`, in bounded linear time.

Only a message that is one of these commands and nothing else is one (after the bot's
mention, if any): anything else goes to the conversation engine as a question. Names are
one word each (no spaces, at most 128 characters); the patterns have no nested or
overlapping repetition, so matching is linear in the message, which is first cut to the
parser's cap (`bot.conversation.parse_bounds`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from bot.conversation.parse_bounds import bounded

__all__ = ["WatchCommand", "parse_watch"]

_MENTION = r"(?:<@[A-Za-z0-9]{1,32}>|@runai-why)?\s*"
_NAME = r"([^\s<>`*]{1,128})"
_WATCH = re.compile(
    rf"{_MENTION}(watch|unwatch)\s+(?:project\s+)?{_NAME}\s+on\s+(?:cluster\s+)?{_NAME}"
    r"(\s+with\s+preemptions)?\s*",
    re.IGNORECASE,
)
_LIST = re.compile(rf"{_MENTION}watches\s*", re.IGNORECASE)


@dataclass(frozen=True)
class WatchCommand:
    """A subscription command: what to do, with which project on which cluster."""

    action: Literal["watch", "unwatch", "list"]
    project: str = ""
    cluster: str = ""
    preemptions: bool = False


def parse_watch(text: str) -> WatchCommand | None:
    """The command `text` is, or None when it is not exactly one."""
    read = bounded(text.strip())
    if read.ignored:
        return None  # longer than any command
    message = read.text
    if _LIST.fullmatch(message):
        return WatchCommand("list")
    found = _WATCH.fullmatch(message)
    if found is None:
        return None
    verb, project, cluster, preemptions = found.groups()
    action: Literal["watch", "unwatch"] = "watch" if verb.lower() == "watch" else "unwatch"
    return WatchCommand(action, project, cluster, preemptions=bool(preemptions))
