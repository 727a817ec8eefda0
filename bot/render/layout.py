"""What every Slack message of the bot shares: the message type, its budget, line one.

The label on line one (category, else outcome), the `label · workload` title, and the closing
line that says how many lines were left out and how to see them all.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.render.slack_text import Block, code, context, safe
from bot.render.wording import cli_command, outcome_words, verdict_label
from diagnosis import Report

__all__ = [
    "BUDGET",
    "CONTINUED_RESERVE",
    "EN_DASH",
    "LEFT_OUT_RESERVE",
    "LINE_MAX",
    "MAX_BLOCKS",
    "SlackMessage",
    "first_line_label",
    "left_out_line",
    "title",
]

MAX_BLOCKS = 50
BUDGET = 11_000  # characters of block text per message; Slack rejects around 12-13k.
LINE_MAX = 1_000  # one evidence/recommendation/... line, bullet and source included.
CONTINUED_RESERVE = 600  # room kept in an overflow message for its first line.
LEFT_OUT_RESERVE = 700  # room kept in every message for the "left out" line.
EN_DASH = "\u2013"  # between the numbers of a range: "evidence 41 to 120 of 300".


@dataclass(frozen=True)
class SlackMessage:
    """One `chat.postMessage` payload: the notification `text` fallback and the blocks."""

    text: str
    blocks: list[Block]


def first_line_label(report: Report) -> str:
    """The category, or the outcome when there is none: what line one of a message says."""
    if report.category is not None:
        return report.category.value
    verdict = verdict_label(report)
    if verdict is not None:
        return verdict
    name, why = outcome_words(report.outcome)
    return f"{name} — {why}" if why else name


def title(report: Report, label: str, limit: int) -> str:
    """`label · workload`, one line, within `limit`; the label itself is never cut."""
    if report.workload is None:
        return label
    prefix = f"{label} · "
    return prefix + safe(report.workload.name, limit - len(prefix), single_line=True, plain=True)


def left_out_line(report: Report, left: int, lookback: str | None, *, button: bool) -> Block:
    """The line saying how many lines were left out, and how to see them all."""
    noun = "line was" if left == 1 else "lines were"
    how = ["press *Show all evidence*"] if button else []
    command = cli_command(report, lookback)
    if command:
        how.append(f"run {code(command, 600)}")
    advice = f" To see them all, {' or '.join(how)}." if how else ""
    return context([f"_{left} more {noun} left out to keep the thread short._{advice}"])
