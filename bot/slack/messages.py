"""Engine replies as Slack messages: reports, questions (asked or answered), notices, evidence.

Pure: a reply in, payloads out. Everything shown from upstream goes through `bot.slack.render`,
which escapes it and keeps Slack's limits; the only mention formed here is of a user ID the
request itself carried, checked to be one.
"""

from __future__ import annotations

import re
from typing import Any

from slack_sdk.models.blocks import ContextBlock, MarkdownTextObject, PlainTextObject

from bot.conversation import Choice, EvidenceReply, Notice, Question, Reply, ReportReply
from bot.slack.render import blocks
from bot.slack.render.blocks import ChartImage, SlackMessage
from bot.slack.render.evidence import MAX_EVIDENCE_MESSAGES, render_evidence
from bot.slack.render.mrkdwn import safe_label

__all__ = ["CHOICE_ACTION", "picked_blocks", "to_slack"]

CHOICE_ACTION = "runai_why_choice"
_USER_ID = re.compile(r"^[UW][A-Z0-9]{1,20}$")
_LABEL_MAX = 150


def _plain_label(label: str) -> str:
    """An upstream label for plain text: cleaned, one line, within Slack's UTF-16 limit.

    A candidate's keeps its facts (`fit_label`), counted as Slack is sent them.
    """
    return safe_label(label, _LABEL_MAX) or "?"


def picked_blocks(blocks: list[dict[str, Any]], user: str, label: str) -> list[dict[str, Any]]:
    """A question's blocks with its buttons replaced by who picked what.

    Only a real Slack user ID becomes a mention, and the label is plain text, so nothing in
    it can format or mention; invisible and control characters are dropped from it.
    """
    who = f"<@{user}> picked" if _USER_ID.match(user) else "Picked"
    picked = ContextBlock(
        elements=[
            MarkdownTextObject(text=who),
            PlainTextObject(text=_plain_label(label), emoji=False),
        ]
    ).to_dict()
    kept: list[dict[str, Any]] = []
    placed = False
    for block in blocks:
        if block.get("type") != "actions":
            kept.append(block)
        elif not placed:
            kept.append(picked)
            placed = True
    return kept if placed else [*kept, picked]


def to_slack(
    reply: Reply,
    *,
    chart: ChartImage | None = None,
    runai_url: str | None = None,
    max_messages: int | None = None,
) -> list[SlackMessage]:
    """Render an engine reply as one or more Slack messages (the first is the main one).

    At most `max_messages` when given (at least one): an answer then counts what it leaves
    out, and says how to see it, as it does past its usual number of thread replies.
    """
    match reply:
        case ReportReply():
            return blocks.render_report(
                reply.report,
                notes=reply.notes,
                cluster_name=reply.cluster_name,
                lookback=reply.lookback,
                runai_url=runai_url,
                chart=chart,
                max_replies=blocks.MAX_REPLIES if max_messages is None else max_messages - 1,
            )
        case Question(picked=Choice() as picked):
            question = blocks.render_question(reply.text, [], block_id_prefix=CHOICE_ACTION)
            shown = picked_blocks(question.blocks, reply.asker or "", picked.label)
            label = safe_label(picked.label, _LABEL_MAX, plain=False)
            return [SlackMessage(text=f"{question.text}\n→ {label}", blocks=shown)]
        case Question():
            choices = [
                blocks.Choice(c.label, c.value, f"{CHOICE_ACTION}_{i}")
                for i, c in enumerate(reply.choices)
            ]
            return [blocks.render_question(reply.text, choices, block_id_prefix=CHOICE_ACTION)]
        case Notice():
            return [blocks.render_notice(reply.text)]
        case EvidenceReply():
            most = MAX_EVIDENCE_MESSAGES if max_messages is None else max_messages
            return render_evidence(reply.report, lookback=reply.lookback, max_messages=most)
