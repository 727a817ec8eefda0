"""One turn with the slots a thread has: resolve the cluster, ask what is missing, or diagnose.

The engine decides *whether* a message is for the bot and what it changes; a `Turns` object
then does the work: it asks the next question (remembering its buttons and who asked), or
runs the diagnosis and shows the answer, never the same report twice unchanged.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import datetime
from typing import Protocol

from bot.audit import AuditSink, audit_event
from bot.conversation.access import Access, Gate
from bot.conversation.clusters import ClusterDirectory
from bot.conversation.messages import (
    CRASHED,
    PICK_BELOW,
    describe_upstream,
    unchanged,
    working_text,
)
from bot.conversation.model import (
    PUBLISH,
    Choice,
    ConversationState,
    Incoming,
    Notice,
    Question,
    Reply,
    ReportReply,
    Slots,
)
from bot.flight import Flights
from bot.observe import observe_stage, record_diagnosis
from bot.parse import Expecting
from bot.render.wording import candidate_labels
from diagnosis import (
    AccessDenied,
    Cluster,
    DiagnosisRequest,
    InvalidRequest,
    KubeConnector,
    Outcome,
    Report,
    RunaiReader,
    UpstreamError,
    WorkloadAccess,
    diagnose,
    parse_lookback,
)

__all__ = ["MAX_CLUSTER_BUTTONS", "Responder", "Turns", "asking"]

MAX_CLUSTER_BUTTONS = 25
CLUSTER_QUESTION = "Which Run:ai cluster is it on?"
PUBLISH_QUESTION = (
    "I answered you privately: this channel discusses only some projects publicly, and "
    "this answer is about another one. Post it to the thread anyway?"
)
PUBLISH_CHOICE = Choice(label="Post it to the thread", value=PUBLISH)


class Responder(Protocol):
    """How a front end shows replies: post a message, later replace it in place.

    A reply with `private=True` goes only to the person whose message is being answered
    (Slack: ephemeral); the engine never updates a private reply.
    """

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


def asking(
    state: ConversationState, question: Question, ref: str, expecting: Expecting | None
) -> ConversationState:
    """The state while `question` (posted as `ref`) waits for the asker's answer."""
    return state.model_copy(
        update={
            "expecting": expecting,
            "question": question.text,
            "choices": question.choices,
            "question_ref": ref or None,
        }
    )


def _answered(state: ConversationState, **changes: object) -> ConversationState:
    cleared = {"expecting": None, "question": None, "choices": (), "question_ref": None}
    return state.model_copy(update=cleared | changes)


class Turns:
    """Cluster resolution, questions and the diagnosis itself, for the engine."""

    def __init__(
        self,
        *,
        runai: RunaiReader,
        kube: KubeConnector | None,
        channel_defaults: Mapping[str, str],
        clock: Callable[[], datetime | None],
        max_concurrent: int,
        deadline_s: float,
        audit: AuditSink,
        access: Access,
        flights: Flights | None = None,
    ) -> None:
        self._runai = runai
        self._access = access
        self._kube = kube
        self._flights = flights
        self._clusters = ClusterDirectory(runai, flights=flights)
        self._defaults = dict(channel_defaults)
        self._clock = clock
        self._slots = asyncio.Semaphore(max_concurrent)
        self._deadline_s = deadline_s
        self._audit = audit

    async def run(
        self, incoming: Incoming, state: ConversationState, responder: Responder
    ) -> ConversationState:
        """Ask for what is missing, or diagnose; returns the thread's new state."""
        slots, notes = state.slots, list(state.notes)
        if slots.cluster_id is None:
            resolved = await self._resolve_cluster(slots, incoming.key.channel, notes, responder)
            if isinstance(resolved, Question):
                question = Question(resolved.text, resolved.choices, asker=state.asker)
                ref = await responder.post(question)
                # Forget an unknown name, so the next reply is read afresh; if it must be
                # asked again, ask the plain question, not the complaint about that name.
                cleared = slots.model_copy(update={"cluster_label": None})
                new = state.model_copy(update={"slots": cleared, "notes": tuple(notes)})
                plain = Question(CLUSTER_QUESTION, resolved.choices)
                return asking(new, plain, ref, Expecting.CLUSTER)
            if resolved is None:
                return _answered(state, slots=slots.model_copy(update={"cluster_label": None}))
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
            await responder.post(Notice(f"That does not look right: {error}", private=True))
            cleared = slots.model_copy(update={"workload_name": None, "project": None})
            return state.model_copy(update={"slots": cleared})
        state = state.model_copy(update={"slots": slots, "notes": tuple(notes)})
        missing = self._missing_question(request, slots, state.asker)
        if missing is not None:
            return asking(state, missing[0], await responder.post(missing[0]), missing[1])
        return await self._diagnose(incoming, state, request, responder)

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
                return self._cluster_question(CLUSTER_QUESTION, known)
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
        request: DiagnosisRequest, slots: Slots, asker: str
    ) -> tuple[Question, Expecting] | None:
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

    async def _diagnose(
        self,
        incoming: Incoming,
        state: ConversationState,
        request: DiagnosisRequest,
        responder: Responder,
    ) -> ConversationState:
        """Authorize, diagnose, answer: nothing is shown before the asker's access is known.

        By name, the project is checked before anything is listed. By ID, the diagnosis asks
        `authorize` right after fetching the workload; only then is "Diagnosing …" posted.
        """
        gate = await self._access.gate(incoming, self._audit)
        cluster_id = request.cluster_id or ""
        cluster_name = state.slots.cluster_label or cluster_id
        by_id = request.workload_id is not None
        channel = incoming.key.channel
        if not by_id:
            decision = await gate.check(cluster_id, cluster_name, request.project or "")
            if not decision.allowed:
                await responder.post(
                    await gate.deny(decision, typed=state.slots.workload_name, by_id=False)
                )
                return _answered(state)
        working = Notice(working_text(state.slots), progress=True)
        ref: str | None = None
        if not by_id and self._access.public_in(channel, request.project):
            ref = await responder.post(working)
        checked = gate.authorize(cluster_id, cluster_name)

        async def authorize(workload: WorkloadAccess) -> bool:
            nonlocal ref
            allowed = await checked(workload)
            if (
                allowed
                and by_id
                and ref is None
                and self._access.public_in(channel, workload.project)
            ):
                ref = await responder.post(working)
            return allowed

        started = time.perf_counter()
        report: Report | None = None
        failed: str | None = None
        try:
            async with self._slots:
                report = await diagnose(
                    request,
                    runai=self._runai,
                    kube=self._kube,
                    now=self._clock(),
                    authorize=authorize,
                    deadline_s=self._deadline_s,
                    share=self._flights,
                    observe=observe_stage,
                )
        except AccessDenied:
            return await self._refused(gate, state, responder)
        except UpstreamError as error:
            failed = error.operation
            await _show(responder, ref, Notice(describe_upstream(error, "finish the diagnosis")))
        except Exception:
            # Never leave "Diagnosing …" spinning: say so in place, then let the error
            # reach the front end's error handler (logged with its traceback there).
            if ref is not None:
                await responder.update(ref, Notice(CRASHED))
            raise
        seconds = time.perf_counter() - started
        event = audit_event(incoming, state.slots, report, failed, seconds)
        try:
            if report is None:
                return _answered(state)
            return await self._reply(
                ref, incoming, state, request=request, report=report, responder=responder
            )
        finally:
            fields = {
                "platform": incoming.key.platform,
                "team_id": incoming.key.team,
                "channel_id": channel,
                "user_id": incoming.user,
                "cluster_id": cluster_id or None,
            }
            record_diagnosis(report, failed=failed, seconds=seconds, fields=fields)
            await self._audit.record(event)  # after the reply: a slow Redis never delays it

    async def _refused(
        self, gate: Gate, state: ConversationState, responder: Responder
    ) -> ConversationState:
        """The workload asked for by ID may not be shown: a private, audited denial only."""
        decision = gate.refused
        assert decision is not None, "AccessDenied without a refusal"  # noqa: S101
        await responder.post(await gate.deny(decision, typed=state.slots.workload_id, by_id=True))
        return _answered(state)

    async def evidence_refusal(self, incoming: Incoming, state: ConversationState) -> Notice | None:
        """The private denial when the person asking for a report's evidence may not see it."""
        report = state.last_report
        if report is None or report.workload is None:
            return None
        workload = report.workload
        gate = await self._access.gate(incoming, self._audit)
        label = state.slots.cluster_label or workload.cluster_id
        target_cluster = workload.cluster_id or state.slots.cluster_id or ""
        decision = await gate.check(target_cluster, label, workload.project or "")
        if decision.allowed:
            return None
        return await gate.deny(decision, typed=None, by_id=True)

    async def _reply(
        self,
        ref: str | None,
        incoming: Incoming,
        state: ConversationState,
        *,
        request: DiagnosisRequest,
        report: Report,
        responder: Responder,
    ) -> ConversationState:
        lookback = request.lookback_label()
        project = report.workload.project if report.workload else request.project
        public = ref is not None or (
            request.workload_id is not None
            and report.workload is None
            and self._access.public_in(incoming.key.channel, project)
        )
        private = not public

        async def show(reply: Notice | Question | ReportReply) -> None:
            if ref is not None:
                await responder.update(ref, reply)
            else:
                await responder.post(replace(reply, private=private))

        if report.outcome is Outcome.NEEDS_INPUT and report.candidates:
            shown = report.candidates[:MAX_CLUSTER_BUTTONS]
            choices = tuple(
                Choice(label=label, value=f"workload:{c.id}")
                for c, label in zip(shown, candidate_labels(shown), strict=True)
            )
            text = f"{report.question or 'Which workload?'} {PICK_BELOW}"
            question = Question(text, choices, asker=state.asker)
            await show(question)
            asked = state.model_copy(update={"candidates": report.candidates})
            return asking(asked, question, ref or "", Expecting.WORKLOAD)
        if report == state.last_report and lookback == state.last_lookback:
            label = report.category.value if report.category else report.outcome.value
            await show(Notice(unchanged(label, lookback)))
            return _answered(state, candidates=())
        await show(
            ReportReply(report, lookback, state.notes, cluster_name=state.slots.cluster_label)
        )
        answered = _answered(
            state,
            candidates=(),
            last_report=report,
            last_lookback=lookback,
            answer_private=private,
        )
        if private and report.workload is not None:
            question = Question(
                PUBLISH_QUESTION, (PUBLISH_CHOICE,), private=True, asker=state.asker
            )
            await responder.post(question)
        if report.question:  # "Did you mean a past run?": the asker's reply answers it
            return answered.model_copy(
                update={"expecting": Expecting.WORKLOAD, "question": report.question}
            )
        return answered


async def _show(responder: Responder, ref: str | None, reply: Notice) -> None:
    """Replace the progress notice with `reply`, or, when none was posted, tell the asker."""
    if ref is None:
        await responder.post(replace(reply, private=True))
    else:
        await responder.update(ref, reply)
