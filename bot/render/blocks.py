"""Renders a `Report`, a question or a notice as Slack Block Kit messages; no I/O.

Owns the Slack layout of a diagnosis and keeps every message within Block Kit limits:
what does not fit in the main message goes, in order, into overflow messages meant for
thread replies, and the main message says how many lines moved there. All report text is
untrusted: it is cleaned and escaped by `bot.render.slack_text`, every mrkdwn object is
`verbatim`, and the renderer itself never emits a mention or a link.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.render.slack_text import (
    SECTION_MAX,
    Block,
    block_chars,
    code,
    context,
    mrkdwn,
    pack_lines,
    safe,
    section,
    slack_len,
)
from bot.render.wording import OWNER_LABEL, recurrence_sentence
from diagnosis import Outcome, Report

__all__ = [
    "BUDGET",
    "MAX_BLOCKS",
    "Choice",
    "SlackMessage",
    "first_line_label",
    "render_notice",
    "render_question",
    "render_report",
]

MAX_BLOCKS = 50
BUDGET = 11_000  # characters of block text per message; Slack rejects around 12-13k.
_HEADER_MAX = 150
_CONTEXT_MAX = 10
_BUTTONS_MAX = 25
_LABEL_MAX = 75
_VALUE_MAX = 2_000
_ID_MAX = 255
_LINE_MAX = 1_000  # one evidence/recommendation/... line, bullet and source included.
_HEADLINE_MAX = 2_000
_VALUE_SHOWN_MAX = 300  # a workload/project/cluster/phase value in a field.
_NOTE_MAX = 200
_FALLBACK_MAX = 1_500  # the top-level `text`.
_MORE_RESERVE = 100  # room kept per list for its "N more ... in the thread" line.
_CONTINUED_RESERVE = 600  # room kept in an overflow message for its first line.

_EN_DASH = "\u2013"  # between the numbers of a range: "evidence 41 to 120 of 300".
_OUTCOME_LABEL: dict[Outcome, str] = {
    Outcome.SUCCEEDED: "SUCCEEDED — not a failure",
    Outcome.PREEMPTED: "PREEMPTED — not a failure",
    Outcome.PENDING_SCHEDULING: "PENDING — scheduling, not a failure",
    Outcome.SUSPENDED: "SUSPENDED — out of scope",
    Outcome.RUNNING_NO_FAILURE: "RUNNING — no failure confirmed",
    Outcome.NOT_TERMINAL: "NOT TERMINAL — no category assigned",
    Outcome.CLUSTER_MISMATCH: "CLUSTER MISMATCH — stopped",
    Outcome.NEEDS_INPUT: "NEED MORE INFORMATION",
    Outcome.NOT_FOUND: "NOT FOUND",
}


@dataclass(frozen=True)
class SlackMessage:
    """One `chat.postMessage` payload: the notification `text` fallback and the blocks."""

    text: str
    blocks: list[Block]


@dataclass(frozen=True)
class Choice:
    """One button of a question: shown `label`, returned `value`, handler `action_id`."""

    label: str
    value: str
    action_id: str


@dataclass(frozen=True)
class _Part:
    """One list of the report (evidence, recommendations, ...) as rendered lines."""

    noun: str  # "evidence" in "evidence 3-9 of 9".
    more: tuple[str, str]  # "evidence line(s)" in "4 more evidence lines in the thread".
    title: str
    lines: tuple[str, ...]


def first_line_label(report: Report) -> str:
    """The category, or the outcome when there is none: what line one of a message says."""
    if report.category is not None:
        return report.category.value
    return _OUTCOME_LABEL.get(report.outcome, report.outcome.value.upper())


def _title(report: Report, label: str, limit: int) -> str:
    """`label · workload`, one line, within `limit`; the label itself is never cut."""
    if report.workload is None:
        return label
    prefix = f"{label} · "
    return prefix + safe(report.workload.name, limit - len(prefix), single_line=True)


def _fields(report: Report) -> Block | None:
    w = report.workload
    if w is None:
        return None
    pairs = (("Workload", w.name), ("Project", w.project), ("Cluster", w.cluster_id))
    fields = [f"*{name}*\n{code(value or 'unknown', _VALUE_SHOWN_MAX)}" for name, value in pairs]
    fields.append(f"*Phase*\n{safe(w.phase or 'unknown', _VALUE_SHOWN_MAX, single_line=True)}")
    if report.recovery_owner:
        fields.append(f"*{OWNER_LABEL}*\n{safe(report.recovery_owner, _VALUE_SHOWN_MAX)}")
    return {"type": "section", "fields": [mrkdwn(f) for f in fields]}


def _recurrence(report: Report) -> str | None:
    sentence = recurrence_sentence(report)
    return safe(sentence, _LINE_MAX) if sentence else None


def _bullet(text: str, suffix: str = "") -> str:
    return f"• {safe(text, _LINE_MAX - 2 - slack_len(suffix)) or ' '}{suffix}"


def _parts(report: Report) -> list[_Part]:
    evidence = tuple(
        _bullet(e.text, f"  _({safe(e.source, 100, single_line=True)})_") for e in report.evidence
    )
    candidates = tuple(
        f"• {code(c.name, 300)} ({safe(c.project or '?', 200, single_line=True)}) "
        f"phase {safe(c.phase or '?', 100, single_line=True)}: workload ID {code(c.id, 300)}"
        for c in report.candidates
    )
    missing = report.missing if report.outcome is not Outcome.NEEDS_INPUT else ()
    return [
        _Part("evidence", ("evidence line", "evidence lines"), "*Evidence*", evidence),
        _Part("recommendations", ("recommendation", "recommendations"), "*Recommendation*",
              tuple(_bullet(r) for r in report.recommendations)),
        _Part("candidates", ("candidate", "candidates"), "*Candidates*", candidates),
        _Part("not measured", ("not-measured item", "not-measured items"), "*Not measured*",
              tuple(_bullet(m) for m in missing)),
    ]  # fmt: skip


def _more(part: _Part, left: int) -> Block:
    return context([f"_{left} more {part.more[left > 1]} in the thread_"])


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


def render_report(
    report: Report, *, notes: Sequence[str] = (), actions: bool = True
) -> list[SlackMessage]:
    """The main message first, then overflow messages to post as replies in its thread.

    `notes` are shown in the closing context line (e.g. which default cluster was used).
    `actions` is reserved: the report currently carries no buttons either way.
    """
    del actions
    label = first_line_label(report)
    title = _title(report, label, _HEADER_MAX)
    head: list[Block] = [{"type": "header", "text": {"type": "plain_text", "text": title}}]
    head += [b for b in (_fields(report),) if b is not None]
    headline = safe(report.headline, _HEADLINE_MAX)
    if headline:
        head.append(section(headline))
    recurrence = [section(r) for r in (_recurrence(report),) if r]
    closing = [b for b in (_context_block(report, notes),) if b]
    fixed = [*head, *recurrence, *closing]
    parts = _parts(report)
    chars = BUDGET - block_chars(*fixed) - _MORE_RESERVE * len(parts)
    blocks = MAX_BLOCKS - len(fixed) - len(parts)

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
        if count < len(part.lines):
            body.append(_more(part, len(part.lines) - count))
        taken.append(count)
        bodies.append(body)

    main = [*head, *bodies[0], *recurrence, *(b for body in bodies[1:] for b in body), *closing]
    fallback = safe(report.headline, _FALLBACK_MAX - len(title) - 1)
    messages = [SlackMessage(text=f"{title}\n{fallback}".rstrip(), blocks=main)]
    messages += _overflow(report, label, parts, taken)
    return messages


def _overflow(
    report: Report, label: str, parts: Sequence[_Part], taken: Sequence[int]
) -> list[SlackMessage]:
    """Thread replies carrying, in order, the lines the main message had no room for."""
    messages: list[SlackMessage] = []
    cursor = list(taken)
    while any(c < len(p.lines) for c, p in zip(cursor, parts, strict=True)):
        chars, blocks = BUDGET - _CONTINUED_RESERVE, MAX_BLOCKS - 1
        body: list[Block] = []
        ranges: list[str] = []
        for i, part in enumerate(parts):
            if cursor[i] >= len(part.lines) or blocks <= 0:
                continue
            count, taken_blocks = pack_lines(part.title, part.lines[cursor[i] :], chars, blocks)
            if count == 0:
                break  # no room left here: the rest starts the next message, in order.
            ranges.append(
                f"{part.noun} {cursor[i] + 1}{_EN_DASH}{cursor[i] + count} of {len(part.lines)}"
            )
            cursor[i] += count
            body += taken_blocks
            chars -= block_chars(*taken_blocks)
            blocks -= len(taken_blocks)
        if not ranges:
            break  # unreachable: a line is far shorter than an empty message's room.
        first = f"{_title(report, f'(continued) {label}', 300)} — {'; '.join(ranges)}"
        messages.append(SlackMessage(text=first, blocks=[section(first), *body]))
    return messages


def render_question(text: str, choices: Sequence[Choice], *, block_id_prefix: str) -> SlackMessage:
    """A question and its choices as buttons (25 per actions block), within all limits.

    Raises:
        ValueError: an id or value Slack would reject (too long, or action_id repeated).
    """
    if not 0 < len(block_id_prefix) <= _ID_MAX - len(":choices:99"):  # 48 blocks at most.
        raise ValueError("block_id_prefix must be 1 to 244 characters")
    ids = [c.action_id for c in choices]
    if len(set(ids)) != len(ids) or not all(0 < len(i) <= _ID_MAX for i in ids):
        raise ValueError("action_id values must be unique and 1 to 255 characters")
    if any(len(c.value) > _VALUE_MAX for c in choices):
        raise ValueError("a choice value exceeds 2000 characters")
    question = safe(text, SECTION_MAX) or "?"
    blocks: list[Block] = [{**section(question), "block_id": f"{block_id_prefix}:question"}]
    chars = BUDGET - block_chars(*blocks) - _MORE_RESERVE
    buttons: list[Block] = []
    for choice in choices:
        label = safe(choice.label, _LABEL_MAX, single_line=True) or "(no label)"
        button = {
            "type": "button",
            "text": {"type": "plain_text", "text": label},
            "value": choice.value,
            "action_id": choice.action_id,
        }
        cost = block_chars(button) + len(f"{block_id_prefix}:choices:99")
        if cost > chars or len(buttons) >= _BUTTONS_MAX * (MAX_BLOCKS - 2):
            break
        chars -= cost
        buttons.append(button)
    for n in range(0, len(buttons), _BUTTONS_MAX):
        batch = buttons[n : n + _BUTTONS_MAX]
        blocks.append(
            {
                "type": "actions",
                "block_id": f"{block_id_prefix}:choices:{n // _BUTTONS_MAX}",
                "elements": batch,
            }
        )
    if len(buttons) < len(choices):
        blocks.append(context([f"_{len(choices) - len(buttons)} more choices not shown_"]))
    return SlackMessage(text=safe(text, _FALLBACK_MAX) or "?", blocks=blocks)


def render_notice(text: str) -> SlackMessage:
    """A short notice or user-facing error as one section; text fallback says the same."""
    body = safe(text, SECTION_MAX) or "(no details)"
    return SlackMessage(text=body, blocks=[section(body)])
