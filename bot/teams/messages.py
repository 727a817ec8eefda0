"""Engine replies as Teams activities: Adaptive Cards (1.5) whose text can never render live.

A minimal renderer for the Teams front end (the full answer card is `teamscards`' work and
replaces this module, same signature). Every piece of text, ours or upstream, goes into a
`RichTextBlock` of `TextRun`s: Teams shows a `TextRun` as plain text, so markdown, links and
`<at>` mentions from logs stay literal, and no activity carries a top-level `text` (which
Teams would read as markdown). Buttons are `Action.Submit` with
`{"runai_why": "choice", "value": <choice value>}`. A reply longer than one card's budget
continues in further activities.
"""

from __future__ import annotations

import json
from typing import Any

from bot.conversation import (
    SHOW_EVIDENCE,
    Choice,
    EvidenceReply,
    Notice,
    Question,
    Reply,
    ReportReply,
)
from bot.render.actions import runai_workload_url
from bot.render.text import render_text, sanitize
from bot.teams.activity import BUTTON_KEY, BUTTON_KIND

__all__ = ["CARD_BUDGET_BYTES", "CARD_CONTENT_TYPE", "button_data", "to_teams"]

CARD_CONTENT_TYPE = "application/vnd.microsoft.card.adaptive"
#: Well under Teams' ~100 KB (UTF-16) per message, so a card never hits 413.
CARD_BUDGET_BYTES = 24_000
_LINE_MAX = 2_000
_LABEL_MAX = 100


def button_data(value: str) -> dict[str, str]:
    """The `data` of a button whose click sends `value` back as the engine's choice."""
    return {BUTTON_KEY: BUTTON_KIND, "value": value}


def _run(text: str, **style: str) -> dict[str, Any]:
    return {"type": "TextRun", "text": sanitize(text)[:_LINE_MAX], **style}


def _line(text: str, **style: str) -> dict[str, Any]:
    return {"type": "RichTextBlock", "inlines": [_run(text, **style)]}


def _card(body: list[dict[str, Any]], actions: list[dict[str, Any]]) -> dict[str, Any]:
    card: dict[str, Any] = {
        "type": "AdaptiveCard",
        "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
        "version": "1.5",
        "body": body,
    }
    if actions:
        card["actions"] = actions
    return {
        "type": "message",
        "attachments": [{"contentType": CARD_CONTENT_TYPE, "content": card}],
    }


def _submit(choice: Choice) -> dict[str, Any]:
    title = sanitize(choice.label).replace("\n", " ")[:_LABEL_MAX] or "?"
    return {"type": "Action.Submit", "title": title, "data": button_data(choice.value)}


def _cards(
    lines: list[str], actions: list[dict[str, Any]], *, headline: bool
) -> list[dict[str, Any]]:
    """`lines` as one or more cards within the budget; `actions` go on the first."""
    blocks = [_line(text) for text in lines if text.strip()] or [_line("…")]
    if headline:
        blocks[0] = _line(lines[0], size="Large", weight="Bolder")
    cards: list[list[dict[str, Any]]] = [[]]
    used = 0
    for block in blocks:
        size = len(json.dumps(block))
        if cards[-1] and used + size > CARD_BUDGET_BYTES:
            cards.append([])
            used = 0
        cards[-1].append(block)
        used += size
    return [_card(body, actions if i == 0 else []) for i, body in enumerate(cards)]


def _report_actions(reply: ReportReply, runai_url: str | None) -> list[dict[str, Any]]:
    actions: list[dict[str, Any]] = []
    workload = reply.report.workload
    if workload is not None:
        url = runai_workload_url(runai_url, workload.cluster_id, workload.id)
        if url is not None:
            actions.append({"type": "Action.OpenUrl", "title": "Open in Run:ai", "url": url})
    if reply.report.evidence or reply.report.missing:
        actions.append(_submit(Choice("Show all evidence", SHOW_EVIDENCE)))
    return actions


def to_teams(
    reply: Reply, *, runai_url: str | None, chart_url: str | None = None
) -> list[dict[str, Any]]:
    """Render an engine reply as one or more Teams activities (the first is the main one)."""
    match reply:
        case ReportReply():
            text = render_text(reply.report, cluster_name=reply.cluster_name)
            lines = [*text.splitlines(), *(f"Note: {n}" for n in reply.notes)]
            lines.append(f"Lookback: {reply.lookback}")
            activities = _cards(lines, _report_actions(reply, runai_url), headline=True)
            if chart_url is not None:
                image = {"type": "Image", "url": chart_url, "altText": "Memory over time"}
                activities[0]["attachments"][0]["content"]["body"].insert(1, image)
            return activities
        case EvidenceReply():
            lines = render_text(reply.report).splitlines()
            return _cards([f"All evidence ({reply.lookback})", *lines], [], headline=True)
        case Question(picked=Choice() as picked):
            return _cards([*reply.text.splitlines(), f"→ {picked.label}"], [], headline=False)
        case Question():
            actions = [_submit(choice) for choice in reply.choices]
            return _cards(reply.text.splitlines(), actions, headline=False)
        case Notice():
            return _cards(reply.text.splitlines(), [], headline=False)
