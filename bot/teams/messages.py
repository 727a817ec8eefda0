"""Engine replies as Teams activities: answer cards, questions (asked or answered), notices.

Pure: a reply in, Bot Framework message activities out (the first is the main one; the rest
follow it in the thread). The cards are `bot.teams.render.cards` and `.card_parts`, which
escape every upstream string and keep each activity within Teams' size limit. Buttons
are `Action.Submit` with `choice_data(value)`, `{"runai_why": "choice", "value": <engine
choice>}`; an answer's buttons send their action with the answer's target (`report_choice`),
so each acts on the answer it is on. "Open in Run:ai" is an `Action.OpenUrl` made only from
`runai_url` and the IDs.
`private` is not rendered: the responder decides where a private reply goes.
"""

from __future__ import annotations

from typing import Any

from bot.conversation import (
    RERUN,
    SHOW_EVIDENCE,
    Choice,
    EvidenceReply,
    Notice,
    Question,
    Reply,
    ReportReply,
    report_choice,
)
from bot.render import actions
from bot.teams.render import card_parts, cards
from bot.teams.render.card_parts import (
    CARD_CONTENT_TYPE,
    SUBMIT_CHOICE,
    SUBMIT_KEY,
    activity,
    choice_data,
)

__all__ = ["CARD_CONTENT_TYPE", "REPORT_CHOICES", "SUBMIT_CHOICE", "SUBMIT_KEY", "choice_data", "to_teams"]  # fmt: skip  # noqa: E501

#: Report button → the engine action its Action.Submit sends (with the answer's target).
REPORT_CHOICES = {actions.SHOW_ALL_EVIDENCE: SHOW_EVIDENCE, actions.RERUN: RERUN}


def to_teams(
    reply: Reply, *, runai_url: str | None, chart_url: str | None = None
) -> list[dict[str, Any]]:
    """Render an engine reply as one or more Teams activities (the first is the main one).

    `chart_url` is the hosted memory chart of a report (`bot.teams.charts`); without it the
    answer shows the memory series as a sparkline.
    """
    match reply:
        case ReportReply():
            target = actions.report_target(reply.report, reply.lookback)
            choices = {a: report_choice(c, target) for a, c in REPORT_CHOICES.items()}
            answer = cards.render_report_cards(
                reply.report,
                notes=reply.notes,
                cluster_name=reply.cluster_name,
                lookback=reply.lookback,
                runai_url=runai_url,
                chart_url=chart_url,
                choices=choices,
            )
            return [activity(card) for card in answer]
        case EvidenceReply():
            evidence = cards.render_evidence_cards(reply.report, lookback=reply.lookback)
            return [activity(card) for card in evidence]
        case Question(picked=Choice() as picked):
            return [activity(card_parts.render_question_card(reply.text, (), picked=picked.label))]
        case Question():
            options = [(c.label, c.value) for c in reply.choices]
            return [activity(card_parts.render_question_card(reply.text, options))]
        case Notice():
            return [card_parts.render_notice(reply.text)]
