"""The question for a request's missing part: which workload, or which project it is in."""

from __future__ import annotations

from bot.conversation.model import Question, Slots
from bot.conversation.parse import Expecting
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
        text = f"Which project is `{slots.workload_name}` in?"
        return Question(text, asker=asker), Expecting.PROJECT
    return None
