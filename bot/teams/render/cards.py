"""Renders a `Report` and all its evidence as Adaptive Cards 1.5; no I/O.

The Teams counterpart of Slack's Block Kit renderer: the same plan (`bot.render.plan`: the
lines, the sections in their order, what overflows into at most `MAX_REPLIES` further
activities and what is left out), the same words (`bot.render.wording`) and the same buttons
(`bot.render.actions`), written as cards: category first in large text, the workload's facts,
the memory chart as an image by URL (else the sparkline), log lines in monospace. All
upstream text goes through `bot.teams.render.card_text`, and every activity stays within
`ACTIVITY_MAX_BYTES`. The card's parts, and the question and notice cards, are
`bot.teams.render.card_parts` (re-exported here).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from urllib.parse import urlsplit

from bot.render import plan
from bot.render.actions import report_buttons
from bot.render.clean import truncate, utf16_len
from bot.render.plan import LineKind, PlanLine, sources_text
from bot.render.plan.overflow import MAX_EVIDENCE_MESSAGES, MAX_REPLIES, Room, pages, paginate
from bot.render.plan.sections import (
    LINE_MAX,
    Section,
    Slot,
    arrange,
    asked_back,
    evidence_layout,
    report_layout,
    workload_facts,
)
from bot.render.sparkline import memory_sparkline
from bot.render.wording import (
    QUESTION_LABEL,
    candidate_facts,
    cli_command,
    first_line_label,
    left_out_words,
    more_words,
    recurrence_sentence,
)
from bot.teams.render.card_parts import (
    CARD_CONTENT_TYPE,
    CARD_VERSION,
    MAX_CHOICES,
    SUMMARY_MAX,
    Card,
    Element,
    activity,
    choice_data,
    command_block,
    cost,
    render_notice,
    render_question_card,
    small,
    text_block,
    text_with_code,
)
from bot.teams.render.card_text import ACTIVITY_MAX_BYTES, json_bytes, plain, safe
from diagnosis import Report, WorkloadRef

__all__ = [
    "CARD_CONTENT_TYPE",
    "CARD_VERSION",
    "MAX_CHOICES",
    "Card",
    "Element",
    "activity",
    "choice_data",
    "render_evidence_cards",
    "render_notice",
    "render_question_card",
    "render_report_cards",
]

_VALUE_MAX = 300  # a fact's value.
_HEADLINE_MAX = 1_500
_NOTES_MAX = 1_000
_JOIN = " · "
_MORE_RESERVE = 400  # bytes kept per list for its "N more … in the next messages" line.
_LEFT_OUT_RESERVE = 1_600  # bytes kept for the "left out" line and its command.
_CONTINUED_RESERVE = 1_200  # bytes kept in a further activity for its first line.


def _line(line: PlanLine) -> Element:
    """One planned line: a bullet with its sources; a log line in monospace, sources below."""
    text = safe(line.text, LINE_MAX)
    if line.kind is LineKind.GAP:
        return text_block(f"• {text}", spacing="Small")
    source = safe(sources_text(line), 300, single_line=True)
    if line.kind is LineKind.LOG:
        log = text_block(text, fontType="Monospace", spacing="Small")
        return {"type": "Container", "items": [log, small(f"_({source})_")]}
    return text_block(f"• {text}  _({source})_", spacing="Small")


def _recommendation(text: str) -> Element:
    return text_with_code(text, LINE_MAX, lead="• ", spacing="Small")


def _candidate(c: WorkloadRef) -> Element:
    return text_block(
        f"• **{safe(c.name, 300, single_line=True) or '?'}** "
        f"({safe(c.project or '?', 200, single_line=True) or '?'}) · "
        f"{safe(candidate_facts(c), 400, single_line=True)} · workload ID "
        f"{safe(c.id, 300, single_line=True) or '?'}",
        spacing="Small",
    )


def _title(report: Report, label: str) -> str:
    """`label · workload`, one line; the label itself is never cut."""
    if report.workload is None:
        return label
    return f"{label} · {safe(report.workload.name, 300, single_line=True)}"


def _head(report: Report, cluster_name: str | None, chart_url: str | None) -> list[Element]:
    label = first_line_label(report)
    head = [text_block(safe(label, 300, single_line=True), size="Large", weight="Bolder")]
    w = report.workload
    if w is not None:
        facts = [
            {"title": f.title, "value": safe(f.value, _VALUE_MAX, single_line=True)}
            for f in workload_facts(report, cluster_name)
        ]
        head.append({"type": "FactSet", "facts": facts})
        ids = f"Cluster ID {safe(w.cluster_id, 120)} · Workload ID {safe(w.id, 120)}"
        head.append(small(ids))
    if report.headline:
        head.append(text_block(safe(report.headline, _HEADLINE_MAX)))
    if question := asked_back(report):
        head.append(text_block(f"**{QUESTION_LABEL}:** {safe(question, _HEADLINE_MAX)}"))
    head += _memory(report, chart_url)
    return head


def _memory(report: Report, chart_url: str | None) -> list[Element]:
    line = memory_sparkline(report.memory)
    if line is None:
        return []
    url = urlsplit(chart_url or "")
    if url.scheme in {"https", "http"} and url.hostname:
        alt = plain(line, 1_000)
        return [{"type": "Image", "url": chart_url, "altText": alt, "size": "Stretch"}]
    return [text_block(safe(line, LINE_MAX), fontType="Monospace")]


def _notes(report: Report, notes: Sequence[str]) -> list[Element]:
    """The notes on one line, cut to leave room for the redaction count, which is never cut."""
    noun = "value" if report.redactions == 1 else "values"
    redacted = [f"{report.redactions} sensitive {noun} redacted"] if report.redactions else []
    room = _NOTES_MAX - sum(utf16_len(f"{_JOIN}{r}") for r in redacted)
    texts = [t for n in notes if (t := safe(n, 200, single_line=True))]
    joined = [truncate(_JOIN.join(texts), room)] if texts else []
    shown = _JOIN.join([*joined, *redacted])
    return [small(shown)] if shown else []


def _pack(section: Section[Element], start: int, room: Room) -> tuple[int, list[Element], Room]:
    """As many of `section`'s items from `start` as fit in `room` bytes, after its title.

    With the bytes they take, title included (each element measured once).
    """
    heading = text_block(f"**{section.title}**", spacing="Medium")
    used, taken = cost(heading), [heading]
    for item in section.items[start:]:
        if used + (size := cost(item)) > room[0]:
            break
        used += size
        taken.append(item)
    return (len(taken) - 1, taken, (used,)) if len(taken) > 1 else (0, [], (0,))


def _more(section: Section[Element], later: int, left_out: int) -> Element:
    return small(f"_{more_words(section.more, later, left_out, 'in the next messages')}_")


def _left_out(report: Report, left: int, lookback: str | None, *, button: bool) -> list[Element]:
    words = left_out_words(left)
    how = "press **Show all evidence** or run" if button else "run"
    command = cli_command(report, lookback)
    if command is None:
        return [small(f"_{words}_")]
    return [
        small(f"_{words}_ To see them all, {how}:"),
        command_block(command, 600, spacing="Small"),
    ]


def _page_room(prefix: str) -> Room:
    """The room of a further activity headed by `prefix`, in bytes."""
    empty = json_bytes(activity(Card(prefix, [])))
    return (ACTIVITY_MAX_BYTES - empty - _CONTINUED_RESERVE - _LEFT_OUT_RESERVE,)


def _page_card(prefix: str, ranges: str, body: list[Element]) -> Card:
    first = f"{prefix} — {ranges}"
    return Card(plain(first, SUMMARY_MAX), [text_block(first, weight="Bolder"), *body])


def render_report_cards(
    report: Report,
    *,
    notes: Sequence[str] = (),
    cluster_name: str | None = None,
    lookback: str | None = None,
    runai_url: str | None = None,
    chart_url: str | None = None,
    choices: Mapping[str, str] | None = None,
    max_replies: int = MAX_REPLIES,
) -> list[Card]:
    """The answer card first, then at most `max_replies` cards to post after it.

    `choices` maps a report button's action id (`bot.render.actions`) to the engine choice
    its Action.Submit sends; a button without one is left out. "Open in Run:ai" is an
    Action.OpenUrl built only from `runai_url` and the IDs. `chart_url` is the hosted memory
    chart; without it a memory series is shown as a sparkline.
    """
    label = first_line_label(report)
    actions: list[Element] = []
    for button in report_buttons(report, lookback, runai_url):
        if button.url is not None:
            actions.append({"type": "Action.OpenUrl", "title": button.label, "url": button.url})
        elif (choices or {}).get(button.action_id):
            data = choice_data((choices or {})[button.action_id])
            actions.append({"type": "Action.Submit", "title": button.label, "data": data})
    has_evidence_button = any(a["title"] == "Show all evidence" for a in actions)
    summary = plain(f"{_title(report, label)} — {report.headline}", SUMMARY_MAX)
    head = _head(report, cluster_name, chart_url)
    recurrence = recurrence_sentence(report)
    middle = [text_block(safe(recurrence, LINE_MAX))] if recurrence else []
    closing = _notes(report, notes)
    planned = plan.answer(report)
    sections = report_layout(report, planned).translate(_line, _recommendation, _candidate)
    room = ACTIVITY_MAX_BYTES - json_bytes(activity(Card(summary, [], actions)))
    room -= sum(cost(e) for e in (*head, *middle, *closing))
    room -= _MORE_RESERVE * len(sections) + _LEFT_OUT_RESERVE
    others = sum(cost(e) for s in sections[1:] for e in s.items)
    prefix = f"(continued) {_title(report, label)}"
    paged = paginate(
        sections,
        _pack,
        room=(room,),
        others=(others,),
        page_room=_page_room(prefix),
        limit=max_replies,
    )
    parts = {Slot.HEAD: head, Slot.RECURRENCE: middle, Slot.CLOSING: closing}
    for i, section in enumerate(sections):
        later, left_out = paged.counts(i)
        more = [_more(section, later, left_out)] if later or left_out else []
        parts[section.slot] = [*paged.bodies[i], *more]
    cards = [Card(summary, arrange(parts), actions)]
    cards += [_page_card(prefix, page.ranges, page.body) for page in paged.pages]
    left = sum(paged.left_out) + planned.left_out
    if left:
        last = cards[-1]
        note = _left_out(report, left, lookback, button=has_evidence_button)
        cards[-1] = Card(last.summary, [*last.body, *note], last.actions)
    return cards


def render_evidence_cards(
    report: Report, *, lookback: str | None = None, max_cards: int = MAX_EVIDENCE_MESSAGES
) -> list[Card]:
    """Every evidence line and every gap, for "Show all evidence": at most `max_cards` cards.

    What is left is counted, with the command that prints the whole report.
    """
    label = first_line_label(report)
    sections = [s.map(_line) for s in evidence_layout(report)]
    prefix = f"All evidence · {_title(report, label)}"
    cursor = [0] * len(sections)
    found = pages(sections, _pack, _page_room(prefix), max(1, max_cards), cursor)
    cards = [_page_card(prefix, page.ranges, page.body) for page in found]
    if not cards:
        text = f"{_title(report, label)} — no evidence lines were recorded."
        return [Card(plain(text, SUMMARY_MAX), [text_block(text)])]
    left = sum(len(s.items) - c for s, c in zip(sections, cursor, strict=True))
    if left:
        last = cards[-1]
        note = _left_out(report, left, lookback, button=False)
        cards[-1] = Card(last.summary, [*last.body, *note])
    return cards
