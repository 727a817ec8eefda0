"""Renders a `Report` as Slack Block Kit messages; no I/O.

Questions and notices are in `bot.slack.render.questions`, "Show all evidence" in
`bot.slack.render.evidence`; their names are re-exported here, where the front ends import
them. Which lines, sections and order, and what overflows into at most `max_replies` thread
replies, is `bot.render.plan`'s: this module writes the sections in Block Kit and measures
them against Block Kit's limits (which come from `slack_sdk.models.blocks`, which also
validates every block it builds). All report text is untrusted: it is cleaned and escaped by
`bot.slack.render.mrkdwn`, its formatting marks are neutralised, log lines are preformatted,
every mrkdwn object is `verbatim`, and the only link is the "Open in Run:ai" button built
from settings and IDs.
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
    SHOW_ALL_EVIDENCE,
    report_buttons,
    report_target,
)
from bot.render.plan.overflow import MAX_EVIDENCE_MESSAGES, MAX_REPLIES, Paged, Room, paginate
from bot.render.plan.sections import (
    LINE_MAX,
    Fact,
    FactKind,
    Section,
    Slot,
    arrange,
    asked_back,
    report_layout,
    workload_facts,
)
from bot.render.sparkline import memory_sparkline
from bot.render.wording import (
    QUESTION_LABEL,
    candidate_facts,
    first_line_label,
    more_words,
    recurrence_sentence,
)
from bot.slack.render.evidence import PAGE_ROOM, bullet, pack, plan_line, render_evidence
from bot.slack.render.layout import (
    BUDGET,
    LEFT_OUT_RESERVE,
    MAX_BLOCKS,
    SlackMessage,
    left_out_line,
    title,
)
from bot.slack.render.mrkdwn import (
    Block,
    block_chars,
    code,
    context,
    fields_section,
    pack_lines,
    safe,
    section,
    slack_len,
)
from bot.slack.render.questions import Choice, render_notice, render_question
from diagnosis import Report, WorkloadRef

__all__ = [
    "ACTIONS_BLOCK_ID",
    "BUDGET",
    "MAX_BLOCKS",
    "MAX_EVIDENCE_MESSAGES",
    "MAX_REPLIES",
    "ChartImage",
    "Choice",
    "SlackMessage",
    "render_evidence",
    "render_notice",
    "render_question",
    "render_report",
]

ACTIONS_BLOCK_ID = "runai_why_report_actions"
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


def _field(fact: Fact) -> str:
    if fact.kind is FactKind.NAME:
        return f"*{fact.title}*\n{code(fact.value or 'unknown', _VALUE_SHOWN_MAX)}"
    value = safe(fact.value, _VALUE_SHOWN_MAX, single_line=fact.kind is FactKind.WORD)
    return f"*{fact.title}*\n{value}"


def _fields(report: Report, cluster_name: str | None) -> list[Block]:
    w = report.workload
    if w is None:
        return []
    fields = [_field(fact) for fact in workload_facts(report, cluster_name)]
    details = [
        f"Cluster ID {code(w.cluster_id, _ID_SHOWN_MAX)}",
        f"Workload ID {code(w.id, _ID_SHOWN_MAX)}",
    ]
    return [fields_section(fields), context([" · ".join(details)])]


def _recurrence(report: Report) -> str | None:
    sentence = recurrence_sentence(report)
    return safe(sentence, LINE_MAX) if sentence else None


def _candidate(c: WorkloadRef) -> str:
    return (
        f"• {code(c.name, 300)} ({safe(c.project or '?', 200, single_line=True)}) · "
        f"{safe(candidate_facts(c), 400, single_line=True)} · workload ID {code(c.id, 300)}"
    )


def _sections(report: Report, planned: plan.Plan) -> list[Section[str]]:
    """The answer's lists (`bot.render.plan.sections`) as mrkdwn lines."""
    return report_layout(report, planned).translate(
        plan_line, lambda r: bullet(r, keep_code=True), _candidate
    )


def _more(section_: Section[str], later: int, left_out: int) -> Block:
    return context([f"_{more_words(section_.more, later, left_out, 'in the thread')}_"])


def _context_block(report: Report, notes: Sequence[str]) -> Block | None:
    shown = [(n, t) for n in notes if (t := safe(n, _NOTE_MAX, single_line=True))]
    texts = [t for _, t in shown]
    room = _CONTEXT_MAX - (1 if report.redactions else 0)
    if len(texts) > room:  # the rest share one element: their raw text, made safe once
        rest = " · ".join(n for n, _ in shown[room - 1 :])
        texts = [*texts[: room - 1], safe(rest, _NOTE_MAX, single_line=True)]
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
    value = report_target(report, lookback)
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
    header = title(report, label, _HEADER_MAX, plain=True)
    head: list[Block] = [HeaderBlock(text=PlainTextObject(text=header)).to_dict()]
    head += _fields(report, cluster_name)
    headline = safe(report.headline, _HEADLINE_MAX)
    if headline:
        head.append(section(headline))
    if question := asked_back(report):
        head.append(section(f"*{QUESTION_LABEL}:* {safe(question, _HEADLINE_MAX)}"))
    head += _memory(report, chart)
    recurrence = [section(r) for r in (_recurrence(report),) if r]
    closing = _actions(report, lookback, runai_url) if actions else []
    closing += [b for b in (_context_block(report, notes),) if b]
    fixed = [*head, *recurrence, *closing]
    planned = plan.answer(report)
    sections = _sections(report, planned)
    room: Room = (
        BUDGET - block_chars(*fixed) - _MORE_RESERVE * len(sections) - LEFT_OUT_RESERVE,
        MAX_BLOCKS - len(fixed) - len(sections) - 1,
    )
    others = [pack_lines(f"*{s.title}*", s.items, BUDGET, MAX_BLOCKS)[1] for s in sections[1:]]
    whole: Room = (sum(block_chars(*o) for o in others), sum(len(o) for o in others))
    paged = paginate(
        sections, pack, room=room, others=whole, page_room=PAGE_ROOM, limit=max_replies
    )
    main = arrange(_placed(paged, sections, head, recurrence, closing))
    named = title(report, label, _HEADER_MAX)  # the notification `text` is mrkdwn
    fallback = safe(report.headline, _FALLBACK_MAX - slack_len(named) - 1)
    messages = [SlackMessage(text=f"{named}\n{fallback}".rstrip(), blocks=main)]
    for page in paged.pages:
        first = f"{title(report, f'(continued) {label}', 300)} — {page.ranges}"
        messages.append(SlackMessage(text=first, blocks=[section(first), *page.body]))
    left = sum(paged.left_out) + planned.left_out
    if left:
        button = any(
            e.get("action_id") == SHOW_ALL_EVIDENCE for b in closing for e in b.get("elements", ())
        )
        note = left_out_line(report, left, lookback, button=button)
        last = messages[-1]
        messages[-1] = SlackMessage(text=last.text, blocks=[*last.blocks, note])
    return messages


def _placed(
    paged: Paged[Block],
    sections: Sequence[Section[str]],
    head: list[Block],
    recurrence: list[Block],
    closing: list[Block],
) -> dict[Slot, list[Block]]:
    """The answer's blocks by slot: each list with its "N more … in the thread" line."""
    parts = {Slot.HEAD: head, Slot.RECURRENCE: recurrence, Slot.CLOSING: closing}
    for i, section_ in enumerate(sections):
        later, left_out = paged.counts(i)
        more = [_more(section_, later, left_out)] if later or left_out else []
        parts[section_.slot] = [*paged.bodies[i], *more]
    return parts
