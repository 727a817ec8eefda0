"""Planned lines in Slack mrkdwn, and "Show all evidence": every line behind an answer.

Which lines an answer shows is `bot.render.plan`'s choice; this module only writes them.
Log lines are preformatted, so they show exactly as the container wrote them; other lines
are escaped and their formatting marks neutralised. Capped like a report's replies.
"""

from __future__ import annotations

from bot.render import plan
from bot.render.layout import (
    BUDGET,
    CONTINUED_RESERVE,
    EN_DASH,
    LEFT_OUT_RESERVE,
    LINE_MAX,
    MAX_BLOCKS,
    SlackMessage,
    first_line_label,
    left_out_line,
    title,
)
from bot.render.plan import LineKind, PlanLine, sources_text
from bot.render.slack_text import pack_lines, pre, safe, section, slack_len
from diagnosis import Report

__all__ = [
    "MAX_EVIDENCE_MESSAGES",
    "bullet",
    "plan_line",
    "render_evidence",
]

MAX_EVIDENCE_MESSAGES = 5  # messages "Show all evidence" may post.


def bullet(text: str, suffix: str = "", *, keep_code: bool = False) -> str:
    """`• text suffix`, the text made safe, within one line's budget."""
    body = safe(text, LINE_MAX - 2 - slack_len(suffix), keep_code=keep_code) or " "
    return f"• {body}{suffix}"


def plan_line(line: PlanLine) -> str:
    """One planned line as a bullet with its sources; a log line is preformatted."""
    if line.kind is LineKind.GAP:
        return bullet(line.text)
    source = f"  _({safe(sources_text(line), 300, single_line=True)})_"
    if line.kind is LineKind.LOG:
        return f"• {pre(line.text, LINE_MAX - 2 - slack_len(source))}{source}"
    return bullet(line.text, source)


def render_evidence(
    report: Report, *, lookback: str | None = None, max_messages: int = MAX_EVIDENCE_MESSAGES
) -> list[SlackMessage]:
    """Every fact, change and gap (log lines preformatted), for "Show all evidence".

    At most `max_messages` messages; what is left is counted, with the command that prints
    the whole report.
    """
    label = first_line_label(report)
    lines = tuple(
        plan_line(line) if line.kind is not LineKind.GAP else bullet(f"Not measured: {line.text}")
        for line in plan.everything(report)
    )
    total = len(lines)
    messages: list[SlackMessage] = []
    cursor = 0
    while cursor < total and len(messages) < max(1, max_messages):
        chars = BUDGET - CONTINUED_RESERVE - LEFT_OUT_RESERVE
        count, body = pack_lines("*Evidence*", lines[cursor:], chars, MAX_BLOCKS - 2)
        if count == 0:
            break  # unreachable: a line is far shorter than an empty message's room.
        span = f"evidence {cursor + 1}{EN_DASH}{cursor + count} of {total}"
        first = f"{title(report, f'All evidence · {label}', 300)} — {span}"
        messages.append(SlackMessage(text=first, blocks=[section(first), *body]))
        cursor += count
    if not messages:
        text = f"{title(report, label, 300)} — no evidence lines were recorded."
        return [SlackMessage(text=text, blocks=[section(text)])]
    if cursor < total:
        note = left_out_line(report, total - cursor, lookback, button=False)
        last = messages[-1]
        messages[-1] = SlackMessage(text=last.text, blocks=[*last.blocks, note])
    return messages
