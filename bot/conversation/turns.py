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

from bot.conversation.access import Access, Gate
from bot.conversation.ahead import Background, posted, read_status
from bot.conversation.auditing import audit_event
from bot.conversation.messages import (
    CRASHED,
    PICK_BELOW,
    PUBLISH_CHOICE,
    PUBLISH_QUESTION,
    describe_upstream,
    unchanged,
    working_text,
)
from bot.conversation.missing import missing_question
from bot.conversation.model import (
    Choice,
    ConversationState,
    Incoming,
    Notice,
    Question,
    Reply,
    ReportReply,
)
from bot.conversation.parse import Expecting
from bot.conversation.understand.pods import Asked, find_pod_owner, pod_named
from bot.conversation.understand.projects import unreadable_project
from bot.conversation.which_cluster import CLUSTER_QUESTION, MAX_CLUSTER_BUTTONS, ClusterSlot
from bot.durable.flight import Flights
from bot.ops.audit import AuditSink
from bot.ops.observe import observe_stage, record_diagnosis
from bot.render.wording import candidate_labels
from diagnosis import (
    AccessDenied,
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
            "question_private": question.private,
        }
    )


def _answered(state: ConversationState, **changes: object) -> ConversationState:
    cleared = {
        "expecting": None,
        "question": None,
        "choices": (),
        "question_ref": None,
        "question_private": False,
    }
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
        self._clusters = ClusterSlot(runai, defaults=channel_defaults, flights=flights)
        self.directory = self._clusters.directory
        self.runai = runai
        self._clock = clock
        self._slots = asyncio.Semaphore(max_concurrent)
        self._deadline_s = deadline_s
        self._audit = audit
        self.reading = Background()

    async def gate(self, incoming: Incoming) -> Gate:
        """The checks of one turn, as the person behind `incoming` (their grants read ahead)."""
        gate = await self._access.gate(incoming, self._audit)
        self._access.authorizer.prefetch(gate.identity)
        return gate

    async def run(
        self,
        incoming: Incoming,
        state: ConversationState,
        responder: Responder,
        *,
        gate: Gate | None = None,
    ) -> ConversationState:
        """Ask for what is missing, or diagnose; returns the thread's new state.

        `gate` is the turn's checks when the caller already has them.
        """
        slots, notes = state.slots, list(state.notes)
        if slots.workload_id is not None and self._flights is not None:  # `bot.conversation.ahead`
            self.reading.start(read_status(self._runai, self._flights, slots.workload_id))
        if slots.cluster_id is None:
            if slots.cluster_label is not None:  # matched before access is asked, as ever
                self.reading.start(self._clusters.read_ahead())
            gate = gate or await self.gate(incoming)
            resolved = await self._clusters.resolve(gate, slots, incoming.key.channel, notes)
            if isinstance(resolved, Question):
                question = Question(resolved.text, resolved.choices, asker=state.asker)
                ref = await responder.post(question)
                # Forget an unknown name, so the next reply is read afresh; if it must be
                # asked again, ask the plain question, not the complaint about that name.
                cleared = slots.model_copy(update={"cluster_label": None})
                new = state.model_copy(update={"slots": cleared, "notes": tuple(notes)})
                plain = Question(CLUSTER_QUESTION, resolved.choices)
                return asking(new, plain, ref, Expecting.CLUSTER)
            if isinstance(resolved, Notice):  # a denial, or the cluster list failed
                await responder.post(resolved)
                return _answered(state, slots=slots.model_copy(update={"cluster_label": None}))
            slots = resolved
        if slots.workload_name and slots.project and not slots.workload_id:
            gate = gate or await self.gate(incoming)
            slots = await pod_named(self._runai, gate, slots)
        if slots.pod and not (slots.workload_id or slots.workload_name):
            gate = gate or await self.gate(incoming)
            owner = await find_pod_owner(self._runai, gate, slots, state.asker)
            if isinstance(owner, Notice):
                await responder.post(owner)
                return _answered(state, slots=slots)
            if isinstance(owner, Asked):
                new = state.model_copy(update={"slots": slots, "notes": tuple(notes)})
                return asking(
                    new, owner.question, await responder.post(owner.question), owner.expecting
                )
            slots = owner.slots
            notes.append(owner.note)
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
        missing = missing_question(request, slots, state.asker)
        if missing is not None:
            return asking(state, missing[0], await responder.post(missing[0]), missing[1])
        gate = gate or await self.gate(incoming)
        return await self._diagnose(incoming, gate, state, request, responder)

    async def _diagnose(
        self,
        incoming: Incoming,
        gate: Gate,
        state: ConversationState,
        request: DiagnosisRequest,
        responder: Responder,
    ) -> ConversationState:
        """Authorize, diagnose, answer: nothing is shown before the asker's access is known.

        By name, the project is checked before anything is listed. By ID, the diagnosis asks
        `authorize` right after fetching the workload; only then is "Diagnosing …" posted.
        """
        cluster_id = request.cluster_id or ""
        cluster_name = state.slots.cluster_label or cluster_id
        by_id = request.workload_id is not None
        channel = incoming.key.channel
        if not by_id:
            decision = await gate.may_list(cluster_id, cluster_name, request.project or "")
            if not decision.allowed:
                denial = await gate.deny(decision, typed=state.slots.workload_name, by_id=False)
                typo = await unreadable_project(gate, decision, cluster_name, state.asker)
                if isinstance(typo, Question):  # their near matches, never anyone else's
                    new = state.model_copy(
                        update={"slots": state.slots.model_copy(update={"project": None})}
                    )
                    return asking(new, typo, await responder.post(typo), Expecting.PROJECT)
                await responder.post(typo or denial)
                return _answered(state)
        working = Notice(working_text(state.slots), progress=True)
        # "Diagnosing …" is posted without waiting for it: the reads start next to it, and
        # its ref is awaited only where it is updated (every path below awaits it).
        placeholder: asyncio.Future[str] | None = None
        if not by_id and self._access.public_in(channel, request.project):
            placeholder = asyncio.ensure_future(responder.post(working))
        checked = gate.authorize(cluster_id, cluster_name)

        async def authorize(workload: WorkloadAccess) -> bool:
            nonlocal placeholder
            allowed = await checked(workload)
            if (
                allowed
                and by_id
                and placeholder is None
                and self._access.public_in(channel, workload.project)
            ):
                placeholder = asyncio.ensure_future(responder.post(working))
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
            return await self._refused(incoming, gate, state, responder)
        except UpstreamError as error:
            failed = error.operation
            ref = await placeholder if placeholder is not None else None
            await _show(responder, ref, Notice(describe_upstream(error, "finish the diagnosis")))
        except Exception:
            # Never leave "Diagnosing …" spinning: say so in place, then let the error
            # reach the front end's error handler (logged with its traceback there).
            if placeholder is not None and (ref := await posted(placeholder)):
                await responder.update(ref, Notice(CRASHED))
            raise
        seconds = time.perf_counter() - started
        event = audit_event(incoming, state.slots, report, failed, seconds)
        ref = await placeholder if placeholder is not None else None
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
        self, incoming: Incoming, gate: Gate, state: ConversationState, responder: Responder
    ) -> ConversationState:
        """The workload asked for by ID may not be shown: a private, audited denial only.

        It names the ID only when this message gave it (typed, or a button they were
        shown); one carried over from earlier in the thread may have come from someone else.
        """
        decision = gate.refused
        assert decision is not None, "AccessDenied without a refusal"  # noqa: S101
        asked = state.slots.workload_id or ""
        given = asked in incoming.text or incoming.choice == f"workload:{asked}"
        typed = state.slots.workload_id
        denial = await gate.deny(decision, typed=typed, by_id=given, thread=not given)
        await responder.post(denial)
        return _answered(state)

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
            listed = report.candidates[:MAX_CLUSTER_BUTTONS]
            choices = tuple(
                Choice(label=label, value=f"workload:{c.id}")
                for c, label in zip(listed, candidate_labels(listed), strict=True)
            )
            text = f"{report.question or 'Which workload?'} {PICK_BELOW}"
            question = Question(text, choices, asker=state.asker)
            await show(question)
            asked = state.model_copy(update={"candidates": report.candidates})
            shown = replace(question, private=private)
            return asking(asked, shown, ref or "", Expecting.WORKLOAD)
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
            pending = {"expecting": Expecting.WORKLOAD, "question": report.question}
            return answered.model_copy(update=pending | {"question_private": private})
        return answered


async def _show(responder: Responder, ref: str | None, reply: Notice) -> None:
    """Replace the progress notice with `reply`, or, when none was posted, tell the asker."""
    if ref is None:
        await responder.post(replace(reply, private=True))
    else:
        await responder.update(ref, reply)
