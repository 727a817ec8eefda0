"""The engine's side of understanding: what is known to link against, and what a message changes.

`Reader.read` runs the pipeline with the clusters the control plane lists and, once the
thread's cluster is known, the projects the asker can read there. `absorbed` applies what
was understood to a thread: its slots (a pod, a corrected value), the workloads queued
after the first, and the notes the answer will carry (a lookback that could not be read).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

from bot.conversation.access import Gate
from bot.conversation.clusters import ClusterDirectory
from bot.conversation.filling import lookback_used, merge
from bot.conversation.model import ConversationState, Incoming, Slots
from bot.conversation.understand.pipeline import Known, Understood, understand
from diagnosis import UpstreamError

__all__ = ["MAX_WORKLOADS", "POD_PREFIX", "Reader", "absorbed", "changes", "queued_slots"]

#: How many workloads one message may ask about; each gets its own answer.
MAX_WORKLOADS = 3
#: How a queued pod is told from a queued workload name (`pod:bert-ft-0-1`).
POD_PREFIX = "pod:"
#: The lookback a request without one uses (`bot.conversation.turns`).
DEFAULT_LOOKBACK_LABEL = "24h"


class Reader:
    """Understands one incoming message in its thread."""

    def __init__(
        self,
        directory: ClusterDirectory,
        *,
        clock: Callable[[], datetime | None],
        bot_user_id: str | None,
    ) -> None:
        self._directory = directory
        self._clock = clock
        self._bot_user_id = bot_user_id

    def plainly(self, incoming: Incoming) -> Understood:
        """The message read with nothing known (no lookups): enough to tell chatter."""
        return self._understand(incoming, None, Known())

    async def read(
        self,
        incoming: Incoming,
        state: ConversationState | None,
        gate: Callable[[], Awaitable[Gate]],
    ) -> Understood:
        """The message, linked against the clusters and (when the cluster is known) projects.

        `gate` gives the turn's checks, asked for only when the projects are needed.
        """
        understood = self._understand(incoming, state, Known())
        pasted = understood.explicit and understood.query.cluster is None
        if not (understood.unplaced or pasted):
            return understood  # every word placed, or none worth linking: no lookups
        try:
            listed = await self._directory.clusters()
        except UpstreamError:
            return understood
        clusters = tuple(name for c in listed for name in (c.name, c.uuid))
        understood = self._understand(incoming, state, Known(clusters=clusters))
        cluster_id = state.slots.cluster_id if state else None
        typed = understood.query.cluster
        if typed is not None:
            folded = typed.casefold()
            match = next((c for c in listed if folded in {c.name.casefold(), c.uuid}), None)
            cluster_id = match.uuid if match else None
        if cluster_id is None or not understood.unplaced:
            return understood
        projects = await (await gate()).readable_projects(cluster_id)
        return self._understand(incoming, state, Known(clusters=clusters, projects=projects))

    def _understand(
        self, incoming: Incoming, state: ConversationState | None, known: Known
    ) -> Understood:
        now = self._clock() or datetime.now(UTC)
        return understand(
            incoming.text,
            markup=incoming.markup,
            expecting=state.expecting if state else None,
            known=known,
            bot_user_id=self._bot_user_id,
            today=now.date(),
            directed=incoming.directed,
            has_workload=bool(state and _about_workload(state.slots)),
        )


def _about_workload(slots: Slots) -> bool:
    """Whether the thread is about a workload already (named, by ID, or through a pod)."""
    return bool(slots.workload_name or slots.workload_id or slots.pod)


def absorbed(state: ConversationState, understood: Understood) -> ConversationState:
    """The thread after this message: its slots, the workloads queued, and notes."""
    query = understood.query
    slots = merge(state.slots, query)
    if understood.pods:
        slots = slots.model_copy(
            update={"pod": understood.pods[0], "workload_id": None, "workload_name": None}
        )
    elif query.workload_id or query.workload_name:
        slots = slots.model_copy(update={"pod": None})
    notes = list(state.notes)
    if understood.unread_lookback:
        used = lookback_used(slots.lookback or DEFAULT_LOOKBACK_LABEL)
        notes.append(
            f"I could not read “{understood.unread_lookback}” as a time, so the lookback is "
            f"{used}; say e.g. `last 3 days` to change it."
        )
    notes += understood.not_known  # `prod-a or prod-z`: prod-z is not known
    if understood.namespace:
        notes.append(
            f"Namespace {understood.namespace} is not named runai-<project>, so it does not "
            "tell me the project."
        )
    named = list(understood.others)
    if len(understood.pods) > 1 and not named:
        named = [f"{POD_PREFIX}{pod}" for pod in understood.pods[1:]]
    if not named and not (query.workload_name or query.workload_id or understood.pods):
        return state.model_copy(update={"slots": slots, "notes": tuple(notes)})  # keeps queued
    queued, left = named[: MAX_WORKLOADS - 1], named[MAX_WORKLOADS - 1 :]
    if left:
        shown = ", ".join(n.removeprefix(POD_PREFIX) for n in left)
        notes.append(
            f"I answer at most {MAX_WORKLOADS} workloads per message; ask again about {shown}."
        )
    return state.model_copy(update={"slots": slots, "notes": tuple(notes), "queued": tuple(queued)})


def queued_slots(slots: Slots, queued: str) -> Slots:
    """The slots for the next queued workload (or pod) of a message, on the same cluster."""
    pod = queued.removeprefix(POD_PREFIX) if queued.startswith(POD_PREFIX) else None
    name = None if pod else queued
    update = {"workload_name": name, "workload_id": None, "pod": pod, "symptom": None}
    return slots.model_copy(update=update)


def changes(before: Slots, after: Slots) -> list[str]:
    """What a correction changed, as `cluster prod-a → prod-c`."""
    said = []
    pairs = (
        ("cluster", before.cluster_label or before.cluster_id, after.cluster_label),
        ("workload", before.workload_name or before.workload_id, after.workload_name),
        ("project", before.project, after.project),
        ("lookback", before.lookback, after.lookback),
    )
    for slot, old, new in pairs:
        if new is not None and old != new:
            said.append(f"{slot} {old or '(none)'} → {new}")
    if after.workload_id and after.workload_id != before.workload_id and not after.workload_name:
        said.append(f"workload {before.workload_name or before.workload_id} → {after.workload_id}")
    return said
