"""The question for a request's missing part: which workload, or which project it is in."""

from __future__ import annotations

from bot.conversation.model import Choice, Question, Slots
from bot.conversation.parse import Expecting
from bot.conversation.understand.projects import PROJECT_CHOICE
from diagnosis import DiagnosisRequest

__all__ = ["missing_question"]


def missing_question(
    request: DiagnosisRequest, slots: Slots, asker: str
) -> tuple[Question, Expecting] | None:
    """What to ask before diagnosing `request`, and which slot the reply fills; None: nothing."""
    missing = request.missing()
    if "workload_id or workload_name" in missing:
        text = (
            "Which workload? Reply with its name and project (e.g. `train-bert in nlp`) "
            "or its workload ID."
        )
        return Question(text, asker=asker), Expecting.WORKLOAD
    if "project" in missing:
        named = slots.project_choices
        if named:  # `ml-team or nlp`: those, as buttons
            text = f"Which project is `{slots.workload_name}` in: {' or '.join(named)}?"
            choices = tuple(Choice(label=p, value=f"{PROJECT_CHOICE}:{p}") for p in named)
            return Question(text, choices, asker=asker), Expecting.PROJECT
        text = f"Which project is `{slots.workload_name}` in?"
        return Question(text, asker=asker), Expecting.PROJECT
    return None
