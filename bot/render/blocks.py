"""Renders a `Report`, a question or a notice as Slack Block Kit messages; no I/O.

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
from slack_sdk.models.blocks import Block as SdkBlock
from slack_sdk.models.blocks.basic_components import SlackFile

from bot.render.actions import (
    ACTIONS_BLOCK_ID,
    OPEN_IN_RUNAI,
    RERUN,
    SHOW_ALL_EVIDENCE,
    ActionTarget,
    runai_workload_url,
)
from bot.render.slack_text import (
    SECTION_MAX,
    Block,
    block_chars,
    code,
    context,
    fields_section,
    pack_lines,
    pre,
    safe,
    section,
    slack_len,
)
from bot.render.sparkline import memory_sparkline
from bot.render.wording import (
    OWNER_LABEL,
    QUESTION_LABEL,
    candidate_facts,
    cli_command,
    outcome_words,
    recurrence_sentence,
)
from diagnosis import EvidenceLine, Outcome, Report

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

MAX_BLOCKS = 50
BUDGET = 11_000  # characters of block text per message; Slack rejects around 12-13k.
MAX_REPLIES = 3  # thread replies a report may add; the rest is counted, not posted.
MAX_EVIDENCE_MESSAGES = 5  # messages "Show all evidence" may post.
_HEADER_MAX: int = HeaderBlock.text_max_length
_CONTEXT_MAX: int = ContextBlock.elements_max_length
_BUTTONS_MAX: int = ActionsBlock.elements_max_length
_LABEL_MAX: int = ButtonElement.text_max_length
_VALUE_MAX: int = ButtonElement.value_max_length
_ID_MAX: int = SdkBlock.block_id_max_length
_ALT_MAX: int = ImageBlock.alt_text_max_length
_LINE_MAX = 1_000  # one evidence/recommendation/... line, bullet and source included.
_HEADLINE_MAX = 2_000
_VALUE_SHOWN_MAX = 300  # a workload/project/cluster/phase value in a field.
_NOTE_MAX = 200
_FALLBACK_MAX = 1_500  # the top-level `text`.
_MORE_RESERVE = 100  # room kept per list for its "N more ... in the thread" line.
_CONTINUED_RESERVE = 600  # room kept in an overflow message for its first line.
_LEFT_OUT_RESERVE = 700  # room kept in every message for the "left out" line.
_ID_SHOWN_MAX = 120

#: Outcomes that are not an answer about the workload: nothing to show more of or re-run.
_NO_ACTIONS = frozenset({Outcome.NEEDS_INPUT, Outcome.NOT_FOUND, Outcome.CLUSTER_MISMATCH})
_EN_DASH = "\u2013"  # between the numbers of a range: "evidence 41 to 120 of 300".


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


def first_line_label(report: Report) -> str:
    """The category, or the outcome when there is none: what line one of a message says."""
    if report.category is not None:
        return report.category.value
    name, why = outcome_words(report.outcome)
    return f"{name} — {why}" if why else name


def _title(report: Report, label: str, limit: int) -> str:
    """`label · workload`, one line, within `limit`; the label itself is never cut."""
    if report.workload is None:
        return label
    prefix = f"{label} · "
    return prefix + safe(report.workload.name, limit - len(prefix), single_line=True, plain=True)


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
    return safe(sentence, _LINE_MAX) if sentence else None


def _bullet(text: str, suffix: str = "", *, keep_code: bool = False) -> str:
    body = safe(text, _LINE_MAX - 2 - slack_len(suffix), keep_code=keep_code) or " "
    return f"• {body}{suffix}"


def is_log_line(line: EvidenceLine) -> bool:
    """Whether an evidence line quotes a container log (shown preformatted, as written)."""
    return "logs" in line.source


def _evidence_line(line: EvidenceLine) -> str:
    source = f"  _({safe(line.source, 100, single_line=True)})_"
    if is_log_line(line):
        return f"• {pre(line.text, _LINE_MAX - 2 - slack_len(source))}{source}"
    return _bullet(line.text, source)


def _parts(report: Report) -> list[_Part]:
    evidence = tuple(_evidence_line(e) for e in report.evidence)
    candidates = tuple(
        f"• {code(c.name, 300)} ({safe(c.project or '?', 200, single_line=True)}) · "
        f"{safe(candidate_facts(c), 400, single_line=True)} · workload ID {code(c.id, 300)}"
        for c in report.candidates
    )
    missing = report.missing if report.outcome is not Outcome.NEEDS_INPUT else ()
    return [
        _Part("evidence", ("evidence line", "evidence lines"), "*Evidence*", evidence),
        _Part("recommendations", ("recommendation", "recommendations"), "*Recommendation*",
              tuple(_bullet(r, keep_code=True) for r in report.recommendations)),
        _Part("candidates", ("candidate", "candidates"), "*Candidates*", candidates),
        _Part("not measured", ("not-measured item", "not-measured items"), "*Not measured*",
              tuple(_bullet(m) for m in missing)),
    ]  # fmt: skip


def _more(part: _Part, in_thread: int, left_out: int) -> Block:
    shown = in_thread + left_out
    noun = part.more[shown > 1]
    if not left_out:
        return context([f"_{in_thread} more {noun} in the thread_"])
    if not in_thread:
        return context([f"_{left_out} more {noun} left out (see below)_"])
    return context([f"_{shown} more {noun}: {in_thread} in the thread, {left_out} left out_"])


def _left_out_line(report: Report, left: int, lookback: str | None, *, button: bool) -> Block:
    noun = "line was" if left == 1 else "lines were"
    how = ["press *Show all evidence*"] if button else []
    command = cli_command(report, lookback)
    if command:
        how.append(f"run {code(command, 600)}")
    advice = f" To see them all, {' or '.join(how)}." if how else ""
    return context([f"_{left} more {noun} left out to keep the thread short._{advice}"])


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
    return [section(safe(line, _LINE_MAX))] if line else []


def _actions(report: Report, lookback: str | None, runai_url: str | None) -> list[Block]:
    w = report.workload
    if w is None or not w.id or not w.cluster_id or report.outcome in _NO_ACTIONS:
        return []
    buttons: list[ButtonElement] = []
    value = ActionTarget(w.cluster_id, w.id, lookback).to_value()
    if value is not None:
        if report.evidence:
            buttons.append(
                ButtonElement(text="Show all evidence", action_id=SHOW_ALL_EVIDENCE, value=value)
            )
        buttons.append(ButtonElement(text="Re-run", action_id=RERUN, value=value))
    url = runai_workload_url(runai_url, w.cluster_id, w.id)
    if url is not None:
        buttons.append(ButtonElement(text="Open in Run:ai", action_id=OPEN_IN_RUNAI, url=url))
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
    title = _title(report, label, _HEADER_MAX)
    head: list[Block] = [HeaderBlock(text=PlainTextObject(text=title)).to_dict()]
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
    parts = _parts(report)
    chars = BUDGET - block_chars(*fixed) - _MORE_RESERVE * len(parts) - _LEFT_OUT_RESERVE
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
    fallback = safe(report.headline, _FALLBACK_MAX - len(title) - 1)
    messages = [
        SlackMessage(text=f"{title}\n{fallback}".rstrip(), blocks=main),
        *(m for m, _ in kept),
    ]
    left = sum(sum(counts) for _, counts in dropped)
    if left:
        button = any(
            e.get("action_id") == SHOW_ALL_EVIDENCE for b in closing for e in b.get("elements", ())
        )
        note = _left_out_line(report, left, lookback, button=button)
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
        chars = BUDGET - _CONTINUED_RESERVE - _LEFT_OUT_RESERVE
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
                f"{part.noun} {cursor[i] + 1}{_EN_DASH}{cursor[i] + count} of {len(part.lines)}"
            )
            cursor[i] += count
            counts[i] = count
            body += taken_blocks
            chars -= block_chars(*taken_blocks)
            blocks -= len(taken_blocks)
        if not ranges:
            break  # unreachable: a line is far shorter than an empty message's room.
        first = f"{_title(report, f'(continued) {label}', 300)} — {'; '.join(ranges)}"
        messages.append((SlackMessage(text=first, blocks=[section(first), *body]), counts))
    return messages


def render_evidence(
    report: Report, *, lookback: str | None = None, max_messages: int = MAX_EVIDENCE_MESSAGES
) -> list[SlackMessage]:
    """Every evidence line (log lines preformatted), for "Show all evidence" in the thread.

    At most `max_messages` messages; what is left is counted, with the command that prints
    the whole report.
    """
    label = first_line_label(report)
    lines = tuple(_evidence_line(e) for e in report.evidence)
    total = len(lines)
    messages: list[SlackMessage] = []
    cursor = 0
    while cursor < total and len(messages) < max(1, max_messages):
        chars = BUDGET - _CONTINUED_RESERVE - _LEFT_OUT_RESERVE
        count, body = pack_lines("*Evidence*", lines[cursor:], chars, MAX_BLOCKS - 2)
        if count == 0:
            break  # unreachable: a line is far shorter than an empty message's room.
        span = f"evidence {cursor + 1}{_EN_DASH}{cursor + count} of {total}"
        first = f"{_title(report, f'All evidence · {label}', 300)} — {span}"
        messages.append(SlackMessage(text=first, blocks=[section(first), *body]))
        cursor += count
    if not messages:
        text = f"{_title(report, label, 300)} — no evidence lines were recorded."
        return [SlackMessage(text=text, blocks=[section(text)])]
    if cursor < total:
        note = _left_out_line(report, total - cursor, lookback, button=False)
        last = messages[-1]
        messages[-1] = SlackMessage(text=last.text, blocks=[*last.blocks, note])
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
    question = safe(text, SECTION_MAX, keep_code=True) or "?"
    blocks: list[Block] = [section(question, block_id=f"{block_id_prefix}:question")]
    chars = BUDGET - block_chars(*blocks) - _MORE_RESERVE
    buttons: list[ButtonElement] = []
    for choice in choices:
        label = safe(choice.label, _LABEL_MAX, single_line=True, plain=True) or "(no label)"
        button = ButtonElement(text=label, value=choice.value, action_id=choice.action_id)
        cost = block_chars(button.to_dict()) + len(f"{block_id_prefix}:choices:99")
        if cost > chars or len(buttons) >= _BUTTONS_MAX * (MAX_BLOCKS - 2):
            break
        chars -= cost
        buttons.append(button)
    for n in range(0, len(buttons), _BUTTONS_MAX):
        batch = buttons[n : n + _BUTTONS_MAX]
        block_id = f"{block_id_prefix}:choices:{n // _BUTTONS_MAX}"
        blocks.append(ActionsBlock(block_id=block_id, elements=batch).to_dict())
    if len(buttons) < len(choices):
        blocks.append(context([f"_{len(choices) - len(buttons)} more choices not shown_"]))
    return SlackMessage(text=safe(text, _FALLBACK_MAX, keep_code=True) or "?", blocks=blocks)


def render_notice(text: str) -> SlackMessage:
    """A short notice or user-facing error as one section; text fallback says the same.

    The bot's own code spans (commands in help, the failed call) stay code spans.
    """
    body = safe(text, SECTION_MAX, keep_code=True) or "(no details)"
    return SlackMessage(text=body, blocks=[section(body)])
