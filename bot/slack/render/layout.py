"""What every Slack message of the bot shares: the message type, its budget, its title.

The `label · workload` title, and the closing line that says how many lines were left out
and how to see them all (line one's label and the words are `bot.render.wording`'s).
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.render.wording import cli_command, left_out_words
from bot.slack.render.mrkdwn import Block, code, context, safe, slack_len
from diagnosis import Report

__all__ = [
    "BUDGET",
    "CONTINUED_RESERVE",
    "LEFT_OUT_RESERVE",
    "MAX_BLOCKS",
    "SlackMessage",
    "left_out_line",
    "title",
]

MAX_BLOCKS = 50
BUDGET = 11_000  # characters of block text per message; Slack rejects around 12-13k.
CONTINUED_RESERVE = 600  # room kept in an overflow message for its first line.
LEFT_OUT_RESERVE = 700  # room kept in every message for the "left out" line.


@dataclass(frozen=True)
class SlackMessage:
    """One `chat.postMessage` payload: the notification `text` fallback and the blocks."""

    text: str
    blocks: list[Block]


def title(report: Report, label: str, limit: int, *, plain: bool = False) -> str:
    """`label · workload`, one line, within `limit`; the label itself is never cut.

    For mrkdwn (a section, a message's notification `text`) the workload name's formatting
    marks are neutralised; `plain` is for a plain_text object (the header), where they
    cannot format and are shown as written.
    """
    if report.workload is None:
        return label
    prefix = f"{label} · "
    name = safe(report.workload.name, limit - slack_len(prefix), single_line=True, plain=plain)
    return prefix + name


def left_out_line(report: Report, left: int, lookback: str | None, *, button: bool) -> Block:
    """The line saying how many lines were left out, and how to see them all."""
    how = ["press *Show all evidence*"] if button else []
    command = cli_command(report, lookback)
    if command:
        how.append(f"run {code(command, 600)}")
    advice = f" To see them all, {' or '.join(how)}." if how else ""
    return context([f"_{left_out_words(left)}_{advice}"])
