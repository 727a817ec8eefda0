"""A question with buttons, and a short notice, as Slack messages within Block Kit limits."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from slack_sdk.models.blocks import ActionsBlock, ButtonElement
from slack_sdk.models.blocks import Block as SdkBlock

from bot.slack.render.layout import BUDGET, MAX_BLOCKS, SlackMessage
from bot.slack.render.mrkdwn import (
    SECTION_MAX,
    Block,
    block_chars,
    context,
    safe,
    safe_label,
    section,
)

__all__ = ["Choice", "render_notice", "render_question"]

_BUTTONS_MAX: int = ActionsBlock.elements_max_length
_LABEL_MAX: int = ButtonElement.text_max_length
_VALUE_MAX: int = ButtonElement.value_max_length
_ID_MAX: int = SdkBlock.block_id_max_length
_MORE_RESERVE = 100  # room kept for the "N more choices not shown" line.
_FALLBACK_MAX = 1_500  # the top-level `text`.


@dataclass(frozen=True)
class Choice:
    """One button of a question: shown `label`, returned `value`, handler `action_id`."""

    label: str
    value: str
    action_id: str


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
        label = safe_label(choice.label, _LABEL_MAX) or "(no label)"
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
