"""The parts every Teams card is made of, and the two short ones: a question and a notice.

The card and its activity, the Action.Submit data the Teams front end reads back, a
TextBlock, a text with the bot's code spans (a RichTextBlock whose commands are monospace
runs shown as written), and what an element costs against `ACTIVITY_MAX_BYTES`. Upstream
text goes through `bot.teams.render.card_text`; the report's cards are
`bot.teams.render.cards`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.render.code_spans import MARKS
from bot.render.wording import fit_label
from bot.teams.render.card_text import (
    ACTIVITY_MAX_BYTES,
    Run,
    code_runs,
    json_bytes,
    plain,
    safe,
    verbatim,
)

__all__ = [
    "CARD_CONTENT_TYPE",
    "CARD_VERSION",
    "MAX_CHOICES",
    "SUBMIT_CHOICE",
    "SUBMIT_KEY",
    "Card",
    "Element",
    "activity",
    "choice_data",
    "command_block",
    "cost",
    "render_notice",
    "render_question_card",
    "rich_text",
    "small",
    "text_block",
    "text_with_code",
]

Element = dict[str, Any]
CARD_VERSION = "1.5"
CARD_CONTENT_TYPE = "application/vnd.microsoft.card.adaptive"
SCHEMA = "http://adaptivecards.io/schemas/adaptive-card.json"
#: What every Action.Submit carries: `{"runai_why": "choice", "value": <engine choice>}`.
SUBMIT_KEY, SUBMIT_CHOICE = "runai_why", "choice"
MAX_CHOICES = 25  # buttons on one question, as Slack's cluster list.
SUMMARY_MAX = 300
_TITLE_MAX = 80  # an action's title.
_PICKED_MAX = 150  # what was picked, in the card that replaces the question.
_QUESTION_MAX = 3_000
_NOTICE_MAX = 4_000  # at most 8,000 characters once lines are paragraphs: 16 KB of UTF-16.
_MORE_RESERVE = 400  # bytes kept for the "N more choices not shown" line.


@dataclass(frozen=True)
class Card:
    """One Adaptive Card: its notification summary (plain text), body and card actions."""

    summary: str
    body: list[Element]
    actions: list[Element] = field(default_factory=list)

    def content(self) -> dict[str, Any]:
        """The card as Teams takes it."""
        card: dict[str, Any] = {
            "type": "AdaptiveCard",
            "$schema": SCHEMA,
            "version": CARD_VERSION,
            "body": self.body,
        }
        if self.actions:
            card["actions"] = self.actions
        return card


def activity(card: Card) -> dict[str, Any]:
    """The Bot Framework message activity carrying `card`."""
    return {
        "type": "message",
        "summary": card.summary,
        "attachments": [{"contentType": CARD_CONTENT_TYPE, "content": card.content()}],
    }


def choice_data(value: str) -> dict[str, str]:
    """The `data` of an Action.Submit that sends the engine the choice `value`."""
    return {SUBMIT_KEY: SUBMIT_CHOICE, "value": value}


def text_block(text: str, **style: Any) -> Element:
    """A wrapping TextBlock of already-safe `text` (never empty)."""
    return {"type": "TextBlock", "text": text or "…", "wrap": True, **style}


def rich_text(runs: Sequence[Run], **style: Any) -> Element:
    """A RichTextBlock of already-safe `runs`: each a TextRun, a code span's in monospace.

    Teams reads no markdown in a TextRun, so each is shown, and copied, as written.
    """
    inlines = [
        {"type": "TextRun", "text": text, **({"fontType": "Monospace"} if code else {})}
        for text, code in runs
        if text
    ]
    shown = inlines or [{"type": "TextRun", "text": "…"}]
    return {"type": "RichTextBlock", "inlines": shown, **style}


def text_with_code(
    text: str, limit: int, *, lead: str = "", empty: str = "", **style: Any
) -> Element:
    """Untrusted `text` after `lead`, within `limit`: a TextBlock, or a RichTextBlock.

    With the bot's code spans in it, the RichTextBlock that shows their commands as written
    (`card_text.code_runs`); `lead` is the bot's own (a bullet), `empty` what an empty
    text shows.
    """
    runs = code_runs(text, limit)
    if not runs:
        return text_block(f"{lead}{safe(text, limit) or empty}", **style)
    return rich_text([(lead, False), *runs], **style)


def command_block(command: str, limit: int, **style: Any) -> Element:
    """The bot's own command (`runai-why diagnose …`) on one monospace run, as written."""
    return rich_text([(verbatim(command, limit), True)], **style)


def small(text: str) -> Element:
    """A small, subtle TextBlock: notes, sources, counts."""
    return text_block(text, size="Small", isSubtle=True, spacing="Small")


def cost(element: Element) -> int:
    """What `element` adds to an activity's size."""
    return json_bytes(element) + 2  # and the comma before it


def render_question_card(
    text: str, choices: Sequence[tuple[str, str]], *, picked: str | None = None
) -> Card:
    """A question with one Action.Submit per (label, value) choice, or with what was picked.

    At most `MAX_CHOICES` buttons, within the size limit; the rest are counted. A label is
    fitted by Teams' own count (`fit_label`: as written, no entities), so a candidate's name
    with `&`, `<` or `>` loses only what the title's room takes, never its facts.
    """
    body = [text_with_code(text, _QUESTION_MAX, empty="?")]
    summary = plain(text, SUMMARY_MAX) or "?"
    if picked is not None:
        label = safe(fit_label(picked, _PICKED_MAX), _PICKED_MAX, single_line=True) or "?"
        body.append(text_block(f"Picked by the asker: **{label}**"))
        return Card(summary, body)
    room = ACTIVITY_MAX_BYTES - json_bytes(activity(Card(summary, body))) - _MORE_RESERVE
    shown = 0
    for label, value in choices[:MAX_CHOICES]:
        title = plain(fit_label(label, _TITLE_MAX), _TITLE_MAX) or "(no label)"
        button = {"type": "Action.Submit", "title": title, "data": choice_data(value)}
        row = {"type": "ActionSet", "actions": [button], "spacing": "Small"}
        if (size := cost(row)) > room:
            break
        room -= size
        body.append(row)
        shown += 1
    if shown < len(choices):
        body.append(small(f"_{len(choices) - shown} more choices not shown_"))
    return Card(summary, body)


def render_notice(text: str) -> dict[str, Any]:
    """A short notice as a plain message activity (markdown; the bot's code spans kept).

    A text message shows a code span as code, as Slack does: inside one, each `*`, `_` and
    `~` that can open nothing is kept (`bot.render.code_spans`).
    """
    body = safe(text, _NOTICE_MAX, keep_code=True, marks=MARKS) or "(no details)"
    return {"type": "message", "text": body, "textFormat": "markdown"}
