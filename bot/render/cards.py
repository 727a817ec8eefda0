"""Renders a `Report` and all its evidence as Adaptive Cards 1.5; no I/O.

The Teams counterpart of `bot.render.blocks`, with the same words (`bot.render.wording`,
`bot.render.layout`), the same order and the same buttons (`bot.render.actions`): category
first in large text, the workload's facts, the headline, the memory chart (an image by URL,
else the sparkline), evidence with sources (log lines in monospace), recurrence,
recommendations, candidates, what was not measured, notes. All upstream text goes through
`bot.render.teams_text`. Every activity stays within `ACTIVITY_MAX_BYTES`; what does not fit
goes, in order, into at most `MAX_REPLIES` further activities, and whatever is still left is
counted, with the command that prints it all. The card's parts, and the question and
notice cards, are `bot.render.card_parts` (re-exported here).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from bot.render import plan
from bot.render.actions import report_buttons
from bot.render.blocks import MAX_REPLIES
from bot.render.card_parts import (
    CARD_CONTENT_TYPE,
    CARD_VERSION,
    MAX_CHOICES,
    SUMMARY_MAX,
    Card,
    Element,
    activity,
    choice_data,
    cost,
    render_notice,
    render_question_card,
    small,
    text_block,
)
from bot.render.evidence import MAX_EVIDENCE_MESSAGES
from bot.render.layout import EN_DASH, LINE_MAX, first_line_label
from bot.render.plan import LineKind, PlanLine, sources_text
from bot.render.sparkline import memory_sparkline
from bot.render.teams_text import ACTIVITY_MAX_BYTES, json_bytes, plain, safe
from bot.render.wording import (
    OWNER_LABEL,
    QUESTION_LABEL,
    candidate_facts,
    cli_command,
    recurrence_sentence,
)
from diagnosis import Outcome, Report

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
_MORE_RESERVE = 400  # bytes kept per list for its "N more … in the next messages" line.
_LEFT_OUT_RESERVE = 1_600  # bytes kept for the "left out" line and its command.
_CONTINUED_RESERVE = 1_200  # bytes kept in a further activity for its first line.


@dataclass(frozen=True)
class _Part:
    """One list of the report (evidence, recommendations, …) as rendered elements."""

    noun: str  # "evidence" in "evidence 3 to 9 of 9".
    more: tuple[str, str]  # "evidence line(s)" in "4 more evidence lines in the next messages".
    title: str
    items: tuple[Element, ...]


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


def _bullets(texts: Sequence[str], *, keep_code: bool = False) -> tuple[Element, ...]:
    return tuple(
        text_block(f"• {safe(t, LINE_MAX, keep_code=keep_code)}", spacing="Small") for t in texts
    )


def _parts(report: Report, *, evidence_only: bool = False) -> list[_Part]:
    """The answer's parts; with `evidence_only`, every line behind it (Show all evidence)."""
    lines = plan.everything(report) if evidence_only else plan.answer(report).lines
    shown = tuple(_line(line) for line in lines if line.kind is not LineKind.GAP)
    gaps = tuple(_line(line) for line in lines if line.kind is LineKind.GAP)
    evidence = _Part("evidence", ("evidence line", "evidence lines"), "Evidence", shown)
    not_measured = _Part(
        "not measured", ("not-measured item", "not-measured items"), "Not measured", gaps
    )
    if evidence_only:
        return [evidence, not_measured]
    candidates = tuple(
        text_block(
            f"• **{safe(c.name, 300, single_line=True) or '?'}** "
            f"({safe(c.project or '?', 200, single_line=True) or '?'}) · "
            f"{safe(candidate_facts(c), 400, single_line=True)} · workload ID "
            f"{safe(c.id, 300, single_line=True) or '?'}",
            spacing="Small",
        )
        for c in report.candidates
    )
    return [
        evidence,
        _Part("recommendations", ("recommendation", "recommendations"), "Recommendation",
              _bullets(report.recommendations, keep_code=True)),
        _Part("candidates", ("candidate", "candidates"), "Candidates", candidates),
        not_measured,
    ]  # fmt: skip


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
        pairs = [
            ("Workload", w.name),
            ("Project", w.project or "unknown"),
            ("Cluster", cluster_name or w.cluster_id),
            ("Phase", w.phase or "unknown"),
        ]
        if report.recovery_owner:
            pairs.append((OWNER_LABEL, report.recovery_owner))
        facts = [{"title": k, "value": safe(v, _VALUE_MAX, single_line=True)} for k, v in pairs]
        head.append({"type": "FactSet", "facts": facts})
        ids = f"Cluster ID {safe(w.cluster_id, 120)} · Workload ID {safe(w.id, 120)}"
        head.append(small(ids))
    if report.headline:
        head.append(text_block(safe(report.headline, _HEADLINE_MAX)))
    if report.question and report.outcome is not Outcome.NEEDS_INPUT:
        head.append(text_block(f"**{QUESTION_LABEL}:** {safe(report.question, _HEADLINE_MAX)}"))
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
    texts = [safe(n, 200, single_line=True) for n in notes]
    if report.redactions:
        noun = "value" if report.redactions == 1 else "values"
        texts.append(f"{report.redactions} sensitive {noun} redacted")
    shown = " · ".join(t for t in texts if t)
    return [small(shown[:_NOTES_MAX])] if shown else []


def _pack(part: _Part, start: int, room: int) -> tuple[int, list[Element], int]:
    """As many of `part`'s items from `start` as fit in `room` bytes, after its title.

    With the bytes they take, title included (each element measured once).
    """
    heading = text_block(f"**{part.title}**", spacing="Medium")
    used, taken = cost(heading), [heading]
    for item in part.items[start:]:
        if used + (size := cost(item)) > room:
            break
        used += size
        taken.append(item)
    return (len(taken) - 1, taken, used) if len(taken) > 1 else (0, [], 0)


def _more(part: _Part, next_ones: int, left_out: int) -> Element:
    noun = part.more[next_ones + left_out > 1]
    if not left_out:
        return small(f"_{next_ones} more {noun} in the next messages_")
    if not next_ones:
        return small(f"_{left_out} more {noun} left out (see below)_")
    total = next_ones + left_out
    return small(f"_{total} more {noun}: {next_ones} in the next messages, {left_out} left out_")


def _left_out(report: Report, left: int, lookback: str | None, *, button: bool) -> list[Element]:
    noun = "line was" if left == 1 else "lines were"
    how = "press **Show all evidence** or run" if button else "run"
    command = cli_command(report, lookback)
    if command is None:
        return [small(f"_{left} more {noun} left out to keep the thread short._")]
    return [
        small(f"_{left} more {noun} left out to keep the thread short._ To see them all, {how}:"),
        text_block(safe(command, 600, single_line=True), fontType="Monospace", spacing="Small"),
    ]


def _continued(
    prefix: str, parts: Sequence[_Part], cursor: list[int], limit: int
) -> list[tuple[Card, list[int]]]:
    """Up to `limit` cards carrying, in order, the parts' items from `cursor` on.

    Each card comes with how many items of each part it carries; `cursor` moves on.
    """
    cards: list[tuple[Card, list[int]]] = []
    while len(cards) < limit and any(c < len(p.items) for c, p in zip(cursor, parts, strict=True)):
        room = ACTIVITY_MAX_BYTES - json_bytes(activity(Card(prefix, []))) - _CONTINUED_RESERVE
        room -= _LEFT_OUT_RESERVE
        body: list[Element] = []
        ranges: list[str] = []
        counts = [0] * len(parts)
        for i, part in enumerate(parts):
            if cursor[i] >= len(part.items):
                continue
            count, taken, used = _pack(part, cursor[i], room)
            if count == 0:
                break  # no room left here: the rest starts the next card, in order.
            ranges.append(f"{part.noun} {cursor[i] + 1}{EN_DASH}{cursor[i] + count} of {len(part.items)}")  # fmt: skip  # noqa: E501
            cursor[i] += count
            counts[i] = count
            body += taken
            room -= used
        first = f"{prefix} — {'; '.join(ranges)}"
        cards.append((Card(plain(first, SUMMARY_MAX), [text_block(first, weight="Bolder"), *body]), counts))  # fmt: skip  # noqa: E501
    return cards


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
    parts = _parts(report)
    room = ACTIVITY_MAX_BYTES - json_bytes(activity(Card(summary, [], actions)))
    room -= sum(cost(e) for e in (*head, *middle, *closing))
    room -= _MORE_RESERVE * len(parts) + _LEFT_OUT_RESERVE
    others = sum(cost(e) for p in parts[1:] for e in p.items)
    evidence_room = max(room - others, room // 2)
    taken: list[int] = []
    bodies: list[list[Element]] = []
    for i, part in enumerate(parts):
        count, body, used = _pack(part, 0, evidence_room if i == 0 else room)
        room -= used
        evidence_room -= used
        taken.append(count)
        bodies.append(body)
    cursor = list(taken)
    replies = _continued(f"(continued) {_title(report, label)}", parts, cursor, max(0, max_replies))
    for i, part in enumerate(parts):
        next_ones = sum(counts[i] for _, counts in replies)
        left_out = len(part.items) - taken[i] - next_ones
        if next_ones or left_out:
            bodies[i].append(_more(part, next_ones, left_out))
    main = [*head, *bodies[0], *middle, *(e for b in bodies[1:] for e in b), *closing]
    cards = [Card(summary, main, actions), *(card for card, _ in replies)]
    left = sum(len(p.items) - c for p, c in zip(parts, cursor, strict=True))
    left += plan.answer(report).left_out
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
    parts = _parts(report, evidence_only=True)
    cursor = [0] * len(parts)
    cards = [card for card, _ in _continued(f"All evidence · {_title(report, label)}", parts, cursor, max(1, max_cards))]  # fmt: skip  # noqa: E501
    if not cards:
        text = f"{_title(report, label)} — no evidence lines were recorded."
        return [Card(plain(text, SUMMARY_MAX), [text_block(text)])]
    left = sum(len(p.items) - c for p, c in zip(parts, cursor, strict=True))
    if left:
        last = cards[-1]
        cards[-1] = Card(last.summary, [*last.body, *_left_out(report, left, lookback, button=False)])  # fmt: skip  # noqa: E501
    return cards
