"""What the bot shows while a diagnosis runs: a thread status, or the placeholder message.

`assistant.threads.setStatus` (plain `chat:write` since 2026-03) shows "is diagnosing…" under
the thread with rotating loading messages; where a workspace refuses it, the "Diagnosing …"
placeholder that the answer replaces is the progress shown.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.render.clean import clean, one_line, truncate

__all__ = [
    "CLEAR",
    "LOADING_MESSAGES",
    "ThreadStatus",
    "thread_status",
]

STATUS = "is diagnosing…"
#: The pipeline's steps, in the order they run (Slack shows at most 10).
LOADING_MESSAGES = (
    "Reading the workload's status and events…",
    "Reading its spec, pods and phase history…",
    "Reading metrics and nodes where they matter…",
    "Classifying the failure…",
)
_STATUS_MAX = 100
_LOADING_MAX = 10


@dataclass(frozen=True)
class ThreadStatus:
    """The arguments of one `assistant.threads.setStatus` call (besides channel and thread)."""

    status: str
    loading_messages: tuple[str, ...] = ()


def thread_status(notice: str) -> ThreadStatus:
    """The status to show for a progress notice: the steps, then the notice itself."""
    own = truncate(one_line(clean(notice)), _STATUS_MAX)
    messages = (*LOADING_MESSAGES, own) if own else LOADING_MESSAGES
    return ThreadStatus(STATUS, messages[:_LOADING_MAX])


#: Clears the status (Slack also clears it when the bot posts in the thread).
CLEAR = ThreadStatus("")
