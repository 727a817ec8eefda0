"""Which cluster? The one typed, or the channel's default, or a question listing some.

No cluster name is shown before the asker's access is known: when they typed none, or one
that matches nothing, `Gate.reach` decides first. Someone who may read nothing anywhere gets
the private denial; anyone else is offered only the clusters where they may read something.
A typed name that matches is used as typed (the project is checked next), and nothing is
ever guessed.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Mapping

from bot.authz import Reach
from bot.conversation.access import Gate
from bot.conversation.clusters import ClusterDirectory
from bot.conversation.messages import describe_upstream
from bot.conversation.model import Choice, Notice, Question, Slots
from bot.conversation.understand.vocabulary import near_misses
from bot.durable.flight import Flights
from diagnosis import Cluster, RunaiReader, UpstreamError

__all__ = ["CLUSTER_QUESTION", "MAX_CLUSTER_BUTTONS", "ClusterSlot"]

MAX_CLUSTER_BUTTONS = 25
CLUSTER_QUESTION = "Which Run:ai cluster is it on?"


def _cluster_question(text: str, known: Iterable[Cluster], reach: Reach) -> Question:
    """`text` with a button for each cluster in `known` that `reach` covers."""
    readable = [c for c in known if reach.covers(c.uuid)][:MAX_CLUSTER_BUTTONS]
    choices = tuple(Choice(label=c.name, value=f"cluster:{c.uuid}") for c in readable)
    suffix = "" if choices else " Reply with its cluster ID."
    return Question(text + suffix, choices)


class ClusterSlot:
    """Fills a thread's cluster: from what was typed, the channel's default, or a question."""

    def __init__(
        self, runai: RunaiReader, *, defaults: Mapping[str, str], flights: Flights | None
    ) -> None:
        self.directory = ClusterDirectory(runai, flights=flights)
        self._defaults = dict(defaults)

    async def read_ahead(self) -> None:
        """Read the cluster list now (it is cached), next to the asker's identity lookup.

        Only for a typed cluster name, which `resolve` matches before access is asked
        anyway. Nothing is named to anyone from it; a failure is `resolve`'s to report.
        """
        with contextlib.suppress(UpstreamError):
            await self.directory.clusters()

    async def resolve(
        self, gate: Gate, slots: Slots, channel: str, notes: list[str]
    ) -> Slots | Question | Notice:
        """The slots with the cluster set, a question, or what to say instead.

        Instead: the private denial, or the control plane's failure to list its clusters. A
        note is added to `notes` when the channel's default cluster is used.
        """
        try:
            return await self._resolve(gate, slots, channel, notes)
        except UpstreamError as error:
            return Notice(describe_upstream(error, "list the clusters"))

    async def _resolve(
        self, gate: Gate, slots: Slots, channel: str, notes: list[str]
    ) -> Slots | Question | Notice:
        typed, reach = slots.cluster_label, None
        if typed is None:  # nothing typed: decide their access before naming any cluster
            reach = await gate.reach()
            if not reach.allowed:
                return await gate.deny(reach)
            if slots.cluster_choices:  # `on prod-a or prod-b`: those, asked about
                return await self._which(slots.cluster_choices, reach)
            typed = self._defaults.get(channel)
            if typed is None:
                known = await self.directory.clusters()
                return _cluster_question(CLUSTER_QUESTION, known, reach)
            notes.append(f"Cluster {typed} is this channel's configured default.")
        match = await self.directory.match(typed)
        if match.cluster is not None:
            found = {"cluster_id": match.cluster.uuid, "cluster_label": match.cluster.name}
            return slots.model_copy(update=found | {"cluster_choices": ()})
        reach = reach or await gate.reach()
        if not reach.allowed:
            return await gate.deny(reach)
        readable = [c for c in match.known if reach.covers(c.uuid)]
        near = near_misses(typed, [c.name for c in readable])
        guess = f" Did you mean {' or '.join(near)}?" if near else " Which one?"
        text = f"I don't know a cluster called {typed!r}; I only match exact names or IDs.{guess}"
        first = sorted(readable, key=lambda c: c.name not in near)  # near misses first
        return _cluster_question(text, first, reach)

    async def _which(self, named: tuple[str, ...], reach: Reach) -> Question:
        """Which of the clusters `named` it is on: those of them known, else all."""
        known = await self.directory.clusters()
        folded = {n.casefold() for n in named}
        among = [c for c in known if c.name.casefold() in folded or c.uuid in folded]
        text = f"{CLUSTER_QUESTION[:-1]}: {' or '.join(named)}?"
        return _cluster_question(text, among or known, reach)
