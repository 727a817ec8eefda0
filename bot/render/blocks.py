"""Renders a `Report` as Slack Block Kit messages; no I/O.

Questions and notices are in `bot.render.questions`, "Show all evidence" in
`bot.render.evidence`; their names are re-exported here, where the front ends import them.

Owns the Slack layout of a diagnosis and keeps every message within Block Kit limits (the
limits come from `slack_sdk.models.blocks`, which also validates every block it builds).
What does not fit in the main message goes, in order, into at most `max_replies` thread
replies; whatever is still left is counted and the last message says how to see it all.
All report text is untrusted: it is cleaned and escaped by `bot.render.slack_text`, its
formatting marks are neutralised, log lines are preformatted, every mrkdwn object is
`verbatim`, and the only link is the "Open in Run:ai" button built from settings and IDs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from slack_sdk.models.blocks import (
    ActionsBlock,
    ButtonElement,
    ContextBlock,
    HeaderBlock,
    ImageBlock,
    PlainTextObject,
)
from slack_sdk.models.blocks.basic_components import SlackFile

from bot.render import plan
from bot.render.actions import (
    ACTIONS_BLOCK_ID,
    SHOW_ALL_EVIDENCE,
    ActionTarget,
    report_buttons,
)
from bot.render.evidence import MAX_EVIDENCE_MESSAGES, bullet, plan_line, render_evidence
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
from bot.render.questions import Choice, render_notice, render_question
from bot.render.slack_text import (
    Block,
    block_chars,
    code,
    context,
    fields_section,
    pack_lines,
    safe,
    section,
)
from bot.render.sparkline import memory_sparkline
from bot.render.wording import (
    OWNER_LABEL,
    QUESTION_LABEL,
    candidate_facts,
    recurrence_sentence,
)
from diagnosis import Outcome, Report

__all__ = [
    "BUDGET",
    "MAX_BLOCKS",
    "MAX_EVIDENCE_MESSAGES",
    "MAX_REPLIES",
    "ChartImage",
    "Choice",
    "SlackMessage",
    "first_line_label",
    "render_evidence",
    "render_notice",
    "render_question",
    "render_report",
]

MAX_REPLIES = 3  # thread replies a report may add; the rest is counted, not posted.
_HEADER_MAX: int = HeaderBlock.text_max_length
_CONTEXT_MAX: int = ContextBlock.elements_max_length
_ALT_MAX: int = ImageBlock.alt_text_max_length
_HEADLINE_MAX = 2_000
_VALUE_SHOWN_MAX = 300  # a workload/project/cluster/phase value in a field.
_NOTE_MAX = 200
_FALLBACK_MAX = 1_500  # the top-level `text`.
_MORE_RESERVE = 100  # room kept per list for its "N more ... in the thread" line.
_ID_SHOWN_MAX = 120


@dataclass(frozen=True)
class ChartImage:
    """A chart already uploaded to Slack (files upload v2): its file ID and description."""

    file_id: str
    alt_text: str
    title: str = "CPU memory"


@dataclass(frozen=True)
class _Part:
    """One list of the report (evidence, recommendations, ...) as rendered lines."""

    noun: str  # "evidence" in "evidence 3-9 of 9".
    more: tuple[str, str]  # "evidence line(s)" in "4 more evidence lines in the thread".
    title: str
    lines: tuple[str, ...]


def _fields(report: Report, cluster_name: str | None) -> list[Block]:
    w = report.workload
    if w is None:
        return []
    cluster = cluster_name or w.cluster_id
    pairs = (("Workload", w.name), ("Project", w.project), ("Cluster", cluster))
    fields = [f"*{name}*\n{code(value or 'unknown', _VALUE_SHOWN_MAX)}" for name, value in pairs]
    fields.append(f"*Phase*\n{safe(w.phase or 'unknown', _VALUE_SHOWN_MAX, single_line=True)}")
    if report.recovery_owner:
        fields.append(f"*{OWNER_LABEL}*\n{safe(report.recovery_owner, _VALUE_SHOWN_MAX)}")
    details = [
        f"Cluster ID {code(w.cluster_id, _ID_SHOWN_MAX)}",
        f"Workload ID {code(w.id, _ID_SHOWN_MAX)}",
    ]
    return [fields_section(fields), context([" · ".join(details)])]


def _recurrence(report: Report) -> str | None:
    sentence = recurrence_sentence(report)
    return safe(sentence, LINE_MAX) if sentence else None


def _parts(report: Report, planned: plan.Plan) -> list[_Part]:
    evidence = tuple(plan_line(line) for line in planned.evidence)
    candidates = tuple(
        f"• {code(c.name, 300)} ({safe(c.project or '?', 200, single_line=True)}) · "
        f"{safe(candidate_facts(c), 400, single_line=True)} · workload ID {code(c.id, 300)}"
        for c in report.candidates
    )
    return [
        _Part("evidence", ("evidence line", "evidence lines"), "*Evidence*", evidence),
        _Part("recommendations", ("recommendation", "recommendations"), "*Recommendation*",
              tuple(bullet(r, keep_code=True) for r in report.recommendations)),
        _Part("candidates", ("candidate", "candidates"), "*Candidates*", candidates),
        _Part("not measured", ("not-measured item", "not-measured items"), "*Not measured*",
              tuple(plan_line(line) for line in planned.gaps)),
    ]  # fmt: skip


def _more(part: _Part, in_thread: int, left_out: int) -> Block:
    shown = in_thread + left_out
    noun = part.more[shown > 1]
    if not left_out:
        return context([f"_{in_thread} more {noun} in the thread_"])
    if not in_thread:
        return context([f"_{left_out} more {noun} left out (see below)_"])
    return context([f"_{shown} more {noun}: {in_thread} in the thread, {left_out} left out_"])


def _context_block(report: Report, notes: Sequence[str]) -> Block | None:
    texts = [safe(n, _NOTE_MAX, single_line=True) for n in notes]
    texts = [t for t in texts if t]
    room = _CONTEXT_MAX - (1 if report.redactions else 0)
    if len(texts) > room:
        texts = [*texts[: room - 1], safe(" · ".join(texts[room - 1 :]), _NOTE_MAX)]
    if report.redactions:
        noun = "value" if report.redactions == 1 else "values"
        texts.append(f"{report.redactions} sensitive {noun} redacted")
    return context(texts) if texts else None


def _memory(report: Report, chart: ChartImage | None) -> list[Block]:
    if chart is not None:
        image = ImageBlock(
            slack_file=SlackFile(id=chart.file_id),
            alt_text=safe(chart.alt_text, _ALT_MAX, plain=True) or "CPU memory chart",
            title=PlainTextObject(text=safe(chart.title, 200, single_line=True, plain=True)),
        )
        return [image.to_dict()]
    line = memory_sparkline(report.memory)
    return [section(safe(line, LINE_MAX))] if line else []


def _actions(report: Report, lookback: str | None, runai_url: str | None) -> list[Block]:
    w = report.workload
    value = ActionTarget(w.cluster_id, w.id, lookback).to_value() if w is not None else None
    buttons = [
        ButtonElement(text=b.label, action_id=b.action_id, url=b.url)
        if b.url is not None
        else ButtonElement(text=b.label, action_id=b.action_id, value=value)
        for b in report_buttons(report, lookback, runai_url)
    ]
    if not buttons:
        return []
    return [ActionsBlock(block_id=ACTIONS_BLOCK_ID, elements=buttons).to_dict()]


def render_report(
    report: Report,
    *,
    notes: Sequence[str] = (),
    actions: bool = True,
    cluster_name: str | None = None,
    lookback: str | None = None,
    runai_url: str | None = None,
    chart: ChartImage | None = None,
    max_replies: int = MAX_REPLIES,
) -> list[SlackMessage]:
    """The main message first, then at most `max_replies` messages to post in its thread.

    `notes` are shown in the closing context line (e.g. which default cluster was used).
    `cluster_name` is shown for the cluster (its ID stays in the details line). `actions`
    adds the report's buttons; `runai_url` (the configured `RUNAI_URL`) enables "Open in
    Run:ai". `lookback` goes into the buttons and the `runai-why diagnose` hint. `chart`
    is the uploaded memory chart; without it a memory series is shown as a sparkline.
    """
    label = first_line_label(report)
    header = title(report, label, _HEADER_MAX)
    head: list[Block] = [HeaderBlock(text=PlainTextObject(text=header)).to_dict()]
    head += _fields(report, cluster_name)
    headline = safe(report.headline, _HEADLINE_MAX)
    if headline:
        head.append(section(headline))
    if report.question and report.outcome is not Outcome.NEEDS_INPUT:
        head.append(section(f"*{QUESTION_LABEL}:* {safe(report.question, _HEADLINE_MAX)}"))
    head += _memory(report, chart)
    recurrence = [section(r) for r in (_recurrence(report),) if r]
    closing = _actions(report, lookback, runai_url) if actions else []
    closing += [b for b in (_context_block(report, notes),) if b]
    fixed = [*head, *recurrence, *closing]
    planned = plan.answer(report)
    parts = _parts(report, planned)
    chars = BUDGET - block_chars(*fixed) - _MORE_RESERVE * len(parts) - LEFT_OUT_RESERVE
    blocks = MAX_BLOCKS - len(fixed) - len(parts) - 1

    others = [pack_lines(p.title, p.lines, BUDGET, MAX_BLOCKS)[1] for p in parts[1:]]
    evidence_chars = max(chars - sum(block_chars(*o) for o in others), chars // 2)
    evidence_blocks = max(blocks - sum(len(o) for o in others), blocks // 2)
    taken: list[int] = []
    bodies: list[list[Block]] = []
    for i, part in enumerate(parts):
        limit_c, limit_b = (evidence_chars, evidence_blocks) if i == 0 else (chars, blocks)
        count, body = pack_lines(part.title, part.lines, limit_c, limit_b)
        chars -= block_chars(*body)  # a "more" line below is paid from its reserve, not from here.
        blocks -= len(body)
        taken.append(count)
        bodies.append(body)

    replies = _overflow(report, label, parts, taken)
    kept, dropped = replies[: max(0, max_replies)], replies[max(0, max_replies) :]
    for i, part in enumerate(parts):
        left_out = sum(counts[i] for _, counts in dropped)
        in_thread = len(part.lines) - taken[i] - left_out
        if in_thread or left_out:
            bodies[i].append(_more(part, in_thread, left_out))

    main = [*head, *bodies[0], *recurrence, *(b for body in bodies[1:] for b in body), *closing]
    fallback = safe(report.headline, _FALLBACK_MAX - len(header) - 1)
    messages = [
        SlackMessage(text=f"{header}\n{fallback}".rstrip(), blocks=main),
        *(m for m, _ in kept),
    ]
    left = sum(sum(counts) for _, counts in dropped) + planned.left_out
    if left:
        button = any(
            e.get("action_id") == SHOW_ALL_EVIDENCE for b in closing for e in b.get("elements", ())
        )
        note = left_out_line(report, left, lookback, button=button)
        last = messages[-1]
        messages[-1] = SlackMessage(text=last.text, blocks=[*last.blocks, note])
    return messages


def _overflow(
    report: Report, label: str, parts: Sequence[_Part], taken: Sequence[int]
) -> list[tuple[SlackMessage, list[int]]]:
    """Thread replies carrying, in order, the lines the main message had no room for.

    Each reply comes with how many lines of each part it carries.
    """
    messages: list[tuple[SlackMessage, list[int]]] = []
    cursor = list(taken)
    while any(c < len(p.lines) for c, p in zip(cursor, parts, strict=True)):
        chars = BUDGET - CONTINUED_RESERVE - LEFT_OUT_RESERVE
        blocks = MAX_BLOCKS - 2
        body: list[Block] = []
        ranges: list[str] = []
        counts = [0] * len(parts)
        for i, part in enumerate(parts):
            if cursor[i] >= len(part.lines) or blocks <= 0:
                continue
            count, taken_blocks = pack_lines(part.title, part.lines[cursor[i] :], chars, blocks)
            if count == 0:
                break  # no room left here: the rest starts the next message, in order.
            ranges.append(
                f"{part.noun} {cursor[i] + 1}{EN_DASH}{cursor[i] + count} of {len(part.lines)}"
            )
            cursor[i] += count
            counts[i] = count
            body += taken_blocks
            chars -= block_chars(*taken_blocks)
            blocks -= len(taken_blocks)
        if not ranges:
            break  # unreachable: a line is far shorter than an empty message's room.
        first = f"{title(report, f'(continued) {label}', 300)} — {'; '.join(ranges)}"
        messages.append((SlackMessage(text=first, blocks=[section(first), *body]), counts))
    return messages
