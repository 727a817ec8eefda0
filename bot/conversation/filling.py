"""Slot filling: what a parsed reply or a clicked button changes in a thread's slots."""

from __future__ import annotations

from bot.conversation.model import Choice, ConversationState, Slots
from bot.conversation.parse import Query
from diagnosis import DiagnosisRequest, InvalidRequest, parse_lookback

__all__ = ["apply_choice", "carried_over", "lookback_used", "merge", "pending_choice"]


def lookback_used(label: str) -> str:
    """The lookback a diagnosis uses for `label`, as its answer names it (`5h` is `6h`)."""
    try:
        return DiagnosisRequest(lookback=parse_lookback(label)).lookback_label()
    except InvalidRequest:  # the parser keeps only readable ones: shown as it was
        return label


def merge(slots: Slots, query: Query) -> Slots:
    """The slots after a message: what it names replaces what the thread had."""
    changes: dict[str, object] = {}
    if query.cluster:
        changes |= {"cluster_id": None, "cluster_label": query.cluster, "cluster_choices": ()}
    elif query.cluster_options:
        unset = {"cluster_id": None, "cluster_label": None}
        changes |= unset | {"cluster_choices": query.cluster_options}
    if query.project_options and not query.project:
        changes |= {"project": None, "project_choices": query.project_options}
    if query.workload_id:
        changes |= {"workload_id": query.workload_id, "workload_name": None}
    if query.workload_name:
        changes |= {"workload_name": query.workload_name, "workload_id": None}
    if query.workload_id or query.workload_name:
        changes["symptom"] = None  # a new workload is a new question: its own intent only
    for name in ("project", "lookback", "symptom"):
        value = getattr(query, name)
        if value is not None:
            changes[name] = value
    if query.project:
        changes["project_choices"] = ()
    return slots.model_copy(update=changes)


def carried_over(slots: Slots, query: Query) -> list[str]:
    """The values a new request in the thread takes from earlier, as `project ml-team`."""
    carried: list[str] = []
    named = query.workload_id or query.workload_name
    if not named and (slots.workload_name or slots.workload_id):
        carried.append(f"workload {slots.workload_name or slots.workload_id}")
    if query.cluster is None and (slots.cluster_label or slots.cluster_id):
        carried.append(f"cluster {slots.cluster_label or slots.cluster_id}")
    by_name = query.workload_name or (not named and slots.workload_name)
    if by_name and query.project is None and slots.project:
        carried.append(f"project {slots.project}")
    if query.lookback is None and slots.lookback:
        carried.append(f"lookback {lookback_used(slots.lookback)}")
    return carried


def pending_choice(state: ConversationState, value: str) -> Choice | None:
    """The button of the pending question with this value; None for a stale button."""
    return next((c for c in state.choices if c.value == value), None)


def apply_choice(state: ConversationState, value: str) -> Slots:
    """Apply a clicked button; a picked candidate keeps its name for the progress notice."""
    slots = state.slots
    kind, _, ident = value.partition(":")
    if kind == "cluster":
        return slots.model_copy(update={"cluster_id": None, "cluster_label": ident})
    if kind == "project":  # one of those named, or a near match the asker can read
        return slots.model_copy(update={"project": ident, "project_choices": ()})
    if kind == "name":  # one of several workload names
        return slots.model_copy(update={"workload_name": ident, "workload_id": None})
    if kind == "workload":
        name = next((c.name for c in state.candidates if c.id == ident), None)
        return slots.model_copy(update={"workload_id": ident, "workload_name": name})
    return slots
