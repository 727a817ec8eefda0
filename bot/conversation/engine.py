"""The conversation engine: turns one incoming message plus the thread's state into replies.

It knows nothing about Slack (or Teams, or the console): a front end hands it an `Incoming`
and a `Responder` that can post a reply and later update that same message in place. The
engine asks for whatever is missing, never guesses, and runs the diagnosis.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import UTC, datetime
from typing import Protocol

import structlog

from bot.audit import AuditSink, LogAuditSink, audit_event
from bot.conversation.clusters import ClusterDirectory
from bot.conversation.messages import CRASHED, HELP, describe_upstream, working_text
from bot.conversation.model import (
    Choice,
    ConversationState,
    Incoming,
    Notice,
    Question,
    Reply,
    ReportReply,
    Slots,
)
from bot.conversation.store import StateStore
from bot.parse import Expecting, Query, parse
from bot.render.wording import candidate_label
from diagnosis import (
    Cluster,
    DiagnosisRequest,
    InvalidRequest,
    Outcome,
    Report,
    RunaiReader,
    UpstreamError,
    diagnose,
    parse_lookback,
)
from diagnosis.kube.reader import KubeConnector

__all__ = ["ConversationEngine", "Responder"]

MAX_CLUSTER_BUTTONS = 25


class Responder(Protocol):
    """How a front end shows replies: post a message, later replace it in place."""

    async def post(self, reply: Reply) -> str:
        """Show `reply` in the conversation; returns a reference for `update`."""
        ...

    async def update(self, ref: str, reply: Reply) -> None:
        """Replace the message `ref` with `reply`."""
        ...

    def thread(self) -> str | None:
        """The thread the conversation continues in, when posting created a new one.

        A slash command has no thread until its first reply is posted; that reply's id
        becomes the thread, and the engine stores the state under it so that replies in
        the thread find it. None means "the incoming message's own thread".
        """
        ...


def _merge(slots: Slots, query: Query) -> Slots:
    changes: dict[str, object] = {}
    if query.cluster:
        changes |= {"cluster_id": None, "cluster_label": query.cluster}
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
    return slots.model_copy(update=changes)


def _choice(state: ConversationState, value: str) -> Slots:
    """Apply a clicked button; a picked candidate keeps its name for the progress notice."""
    slots = state.slots
    kind, _, ident = value.partition(":")
    if kind == "cluster":
        return slots.model_copy(update={"cluster_id": None, "cluster_label": ident})
    if kind == "workload":
        name = next((c.name for c in state.candidates if c.id == ident), None)
        return slots.model_copy(update={"workload_id": ident, "workload_name": name})
    return slots


class ConversationEngine:
    """Slot filling, cluster resolution and diagnosis for one platform-neutral conversation."""

    def __init__(
        self,
        *,
        runai: RunaiReader,
        store: StateStore,
        kube: KubeConnector | None = None,
        channel_defaults: Mapping[str, str] | None = None,
        clock: Callable[[], datetime | None] = lambda: None,
        bot_user_id: str | None = None,
        max_concurrent: int = 8,
        audit: AuditSink | None = None,
    ) -> None:
        self._runai = runai
        self._kube = kube
        self._store = store
        self._clusters = ClusterDirectory(runai)
        self._defaults = dict(channel_defaults or {})
        self._clock = clock
        self._bot_user_id = bot_user_id
        self._slots = asyncio.Semaphore(max_concurrent)
        self._log = structlog.get_logger(__name__)
        self._audit = audit or LogAuditSink()

    async def handle(self, incoming: Incoming, responder: Responder) -> None:
        """Answer one incoming message or click, holding the thread's lock throughout."""
        async with self._store.lock(incoming.key):
            state = await self._store.load(incoming.key)
            if not incoming.directed and (state is None or state.expecting is None):
                # A plain reply is only for the bot while it waits for an answer in its own
                # thread; after a report the thread is the people's again (mention to ask).
                return
            state = state or ConversationState(started_by=incoming.user)
            if incoming.choice is not None:
                slots = _choice(state, incoming.choice)
            else:
                query = parse(
                    incoming.text, bot_user_id=self._bot_user_id, expecting=state.expecting
                )
                if query.help:
                    await responder.post(Notice(HELP))
                    return
                if query.problems:
                    await responder.post(
                        Notice("I could not use part of that: " + "; ".join(query.problems))
                    )
                slots = _merge(state.slots, query)
            state = await self._turn(incoming, state.model_copy(update={"slots": slots}), responder)
            thread = responder.thread()
            key = (
                incoming.key
                if thread in {None, incoming.key.thread}
                else replace(incoming.key, thread=thread)
            )
            await self._store.save(key, state.model_copy(update={"updated_at": datetime.now(UTC)}))

    async def _turn(
        self, incoming: Incoming, state: ConversationState, responder: Responder
    ) -> ConversationState:
        slots, notes = state.slots, list(state.notes)
        if slots.cluster_id is None:
            resolved = await self._resolve_cluster(slots, incoming.key.channel, notes, responder)
            if isinstance(resolved, Question):
                await responder.post(resolved)
                return state.model_copy(update={"slots": slots, "expecting": Expecting.CLUSTER})
            if resolved is None:
                return state.model_copy(update={"slots": slots, "expecting": Expecting.CLUSTER})
            slots = resolved
        try:
            request = DiagnosisRequest(
                cluster_id=slots.cluster_id,
                workload_id=slots.workload_id,
                workload_name=slots.workload_name,
                project=slots.project,
                lookback=parse_lookback(slots.lookback or "24h"),
                symptom=slots.symptom,
            )
        except InvalidRequest as error:
            await responder.post(Notice(f"That does not look right: {error}"))
            return state.model_copy(
                update={"slots": slots.model_copy(update={"workload_name": None, "project": None})}
            )
        question = self._missing_question(request, slots)
        if question is not None:
            await responder.post(question[0])
            return state.model_copy(
                update={"slots": slots, "expecting": question[1], "notes": tuple(notes)}
            )
        return await self._diagnose(
            incoming,
            state=state,
            slots=slots,
            request=request,
            notes=tuple(notes),
            responder=responder,
        )

    async def _resolve_cluster(
        self, slots: Slots, channel: str, notes: list[str], responder: Responder
    ) -> Slots | Question | None:
        typed = slots.cluster_label
        if typed is None and channel in self._defaults:
            typed = self._defaults[channel]
            notes.append(f"Cluster {typed} is this channel's configured default.")
        try:
            if typed is None:
                known = await self._clusters.clusters()
                return self._cluster_question("Which Run:ai cluster is it on?", known)
            match = await self._clusters.match(typed)
        except UpstreamError as error:
            await responder.post(Notice(describe_upstream(error, "list the clusters")))
            return None
        if match.cluster is None:
            return self._cluster_question(
                f"I don't know a cluster called {typed!r}; I only match exact names or IDs. "
                "Which one?",
                match.known,
            )
        return slots.model_copy(
            update={"cluster_id": match.cluster.uuid, "cluster_label": match.cluster.name}
        )

    @staticmethod
    def _cluster_question(text: str, known: tuple[Cluster, ...]) -> Question:
        choices = tuple(
            Choice(label=c.name, value=f"cluster:{c.uuid}") for c in known[:MAX_CLUSTER_BUTTONS]
        )
        suffix = "" if choices else " Reply with its cluster ID."
        return Question(text + suffix, choices)

    @staticmethod
    def _missing_question(
        request: DiagnosisRequest, slots: Slots
    ) -> tuple[Question, Expecting] | None:
        missing = request.missing()
        if "workload_id or workload_name" in missing:
            return (
                Question(
                    "Which workload? Reply with its name and project (e.g. `train-bert in nlp`) "
                    "or its workload ID."
                ),
                Expecting.WORKLOAD,
            )
        if "project" in missing:
            return Question(f"Which project is `{slots.workload_name}` in?"), Expecting.PROJECT
        return None

    async def _diagnose(
        self,
        incoming: Incoming,
        *,
        state: ConversationState,
        slots: Slots,
        request: DiagnosisRequest,
        notes: tuple[str, ...],
        responder: Responder,
    ) -> ConversationState:
        ref = await responder.post(Notice(working_text(slots)))
        started = time.perf_counter()
        report: Report | None = None
        failed: str | None = None
        try:
            async with self._slots:
                report = await diagnose(
                    request, runai=self._runai, kube=self._kube, now=self._clock()
                )
        except UpstreamError as error:
            failed = error.operation
            await responder.update(ref, Notice(describe_upstream(error, "finish the diagnosis")))
        except Exception:
            # Never leave "Diagnosing …" spinning: say so in place, then let the error
            # reach the front end's error handler (logged with its traceback there).
            await responder.update(ref, Notice(CRASHED))
            raise
        event = audit_event(incoming, slots, report, failed, time.perf_counter() - started)
        try:
            return await self._reply(
                ref,
                state=state,
                slots=slots,
                request=request,
                notes=notes,
                report=report,
                responder=responder,
            )
        finally:
            await self._audit.record(event)  # after the reply: a slow Redis never delays it

    async def _reply(
        self,
        ref: str,
        *,
        state: ConversationState,
        slots: Slots,
        request: DiagnosisRequest,
        notes: tuple[str, ...],
        report: Report | None,
        responder: Responder,
    ) -> ConversationState:
        if report is None:
            return state.model_copy(update={"slots": slots, "expecting": None})
        if report.outcome is Outcome.NEEDS_INPUT and report.candidates:
            choices = tuple(
                Choice(label=candidate_label(c), value=f"workload:{c.id}")
                for c in report.candidates[:MAX_CLUSTER_BUTTONS]
            )
            await responder.update(ref, Question(report.question or "Which workload?", choices))
            return state.model_copy(
                update={
                    "slots": slots,
                    "expecting": Expecting.WORKLOAD,
                    "candidates": report.candidates,
                }
            )
        reply = ReportReply(report, request.lookback_label(), notes, slots.cluster_label)
        await responder.update(ref, reply)
        return state.model_copy(update={"slots": slots, "expecting": None, "candidates": ()})
