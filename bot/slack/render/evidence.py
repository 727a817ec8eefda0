"""Planned lines in Slack mrkdwn, and "Show all evidence": every line behind an answer.

Which lines an answer shows is `bot.render.plan`'s choice, and how they are cut into messages
`bot.render.plan.overflow`'s; this module only writes them. Log lines are preformatted, so
they show exactly as the container wrote them; other lines are escaped and their formatting
marks neutralised. In Slack's thread the gaps close the one evidence list ("Not measured: …").
"""

from __future__ import annotations

from bot.render.plan import LineKind, PlanLine, sources_text
from bot.render.plan.overflow import MAX_EVIDENCE_MESSAGES, Room, pages
from bot.render.plan.sections import LINE_MAX, Section, evidence_layout
from bot.render.wording import first_line_label
from bot.slack.render.layout import (
    BUDGET,
    CONTINUED_RESERVE,
    LEFT_OUT_RESERVE,
    MAX_BLOCKS,
    SlackMessage,
    left_out_line,
    title,
)
from bot.slack.render.mrkdwn import Block, block_chars, pack_lines, pre, safe, section, slack_len
from diagnosis import Report

__all__ = [
    "MAX_EVIDENCE_MESSAGES",
    "bullet",
    "pack",
    "plan_line",
    "render_evidence",
]

#: The room of a message carrying lines after the first: characters and blocks.
PAGE_ROOM: Room = (BUDGET - CONTINUED_RESERVE - LEFT_OUT_RESERVE, MAX_BLOCKS - 2)


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


def pack(section_: Section[str], start: int, room: Room) -> tuple[int, list[Block], Room]:
    """As many of the section's lines from `start` as fit in `room` (characters, blocks)."""
    chars, blocks = room
    count, body = pack_lines(f"*{section_.title}*", section_.items[start:], chars, blocks)
    return count, body, (block_chars(*body), len(body))


def render_evidence(
    report: Report, *, lookback: str | None = None, max_messages: int = MAX_EVIDENCE_MESSAGES
) -> list[SlackMessage]:
    """Every fact, change and gap (log lines preformatted), for "Show all evidence".

    At most `max_messages` messages; what is left is counted, with the command that prints
    the whole report.
    """
    label = first_line_label(report)
    evidence, gaps = evidence_layout(report)
    lines = (
        *map(plan_line, evidence.items),
        *(bullet(f"Not measured: {gap.text}") for gap in gaps.items),
    )
    one_list = Section(evidence.slot, evidence.title, evidence.more, lines)
    cursor = [0]
    found = pages([one_list], pack, PAGE_ROOM, max(1, max_messages), cursor)
    messages = []
    for page in found:
        first = f"{title(report, f'All evidence · {label}', 300)} — {page.ranges}"
        messages.append(SlackMessage(text=first, blocks=[section(first), *page.body]))
    if not messages:
        text = f"{title(report, label, 300)} — no evidence lines were recorded."
        return [SlackMessage(text=text, blocks=[section(text)])]
    if cursor[0] < len(lines):
        note = left_out_line(report, len(lines) - cursor[0], lookback, button=False)
        last = messages[-1]
        messages[-1] = SlackMessage(text=last.text, blocks=[*last.blocks, note])
    return messages
