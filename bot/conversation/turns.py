"""One turn with the slots a thread has: resolve the cluster, ask what is missing, or diagnose.

The engine decides *whether* a message is for the bot and what it changes; a `Turns` object
then does the work: it asks the next question (remembering its buttons and who asked), or
runs the diagnosis and shows the answer, never the same report twice unchanged.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping
from datetime import datetime

from bot.conversation.access import Access, Gate
from bot.conversation.ahead import Background, posted, read_status
from bot.conversation.auditing import audit_event
from bot.conversation.messages import (
    CRASHED,
    describe_upstream,
    working_text,
)
from bot.conversation.missing import missing_question
from bot.conversation.model import (
    ConversationState,
    Incoming,
    Notice,
    Question,
)
from bot.conversation.parse import Expecting
from bot.conversation.replying import (
    Responder,
    answered,
    asking,
    reply_with_report,
    show_in_place,
)
from bot.conversation.understand.pods import Asked, find_pod_owner, pod_named
from bot.conversation.understand.projects import unreadable_project
from bot.conversation.which_cluster import CLUSTER_QUESTION, ClusterSlot
from bot.durable.flight import Flights
from bot.ops.audit import AuditSink
from bot.ops.observe import observe_stage, record_diagnosis
from diagnosis import (
    AccessDenied,
    DepartmentAccess,
    DiagnosisRequest,
    InvalidRequest,
    KubeConnector,
    Report,
    RunaiReader,
    UpstreamError,
    WorkloadAccess,
    diagnose,
    parse_lookback,
)

__all__ = ["Turns"]


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
                return answered(state, slots=slots.model_copy(update={"cluster_label": None}))
            slots = resolved
        if slots.workload_name and slots.project and not slots.workload_id:
            gate = gate or await self.gate(incoming)
            slots = await pod_named(self._runai, gate, slots)
        if slots.pod and not (slots.workload_id or slots.workload_name):
            gate = gate or await self.gate(incoming)
            owner = await find_pod_owner(self._runai, gate, slots, state.asker)
            if isinstance(owner, Notice):
                await responder.post(owner)
                return answered(state, slots=slots)
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
                return answered(state)
        working = Notice(working_text(state.slots), progress=True)
        # "Diagnosing …" is posted without waiting for it: the reads start next to it, and
        # its ref is awaited only where it is updated (every path below awaits it).
        placeholder: asyncio.Future[str] | None = None
        if not by_id and self._access.public_in(channel, request.project):
            placeholder = asyncio.ensure_future(responder.post(working))
        checked = gate.authorize(cluster_id, cluster_name)

        async def authorize(workload: WorkloadAccess | DepartmentAccess) -> bool:
            nonlocal placeholder
            allowed = await checked(workload)
            if (
                allowed
                and isinstance(workload, WorkloadAccess)
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
            await show_in_place(
                responder, ref, Notice(describe_upstream(error, "finish the diagnosis"))
            )
        except (Exception, asyncio.CancelledError) as error:
            # The error then reaches the front end's handler (logged with its traceback there).
            await _abandoned(placeholder, responder, error)
            raise
        seconds = time.perf_counter() - started
        event = audit_event(incoming, state.slots, report, failed, seconds)
        ref = await placeholder if placeholder is not None else None
        try:
            if report is None:
                return answered(state)
            return await reply_with_report(
                ref,
                incoming,
                state,
                request=request,
                report=report,
                responder=responder,
                public_in=self._access.public_in,
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
        return answered(state)


async def _abandoned(
    placeholder: asyncio.Future[str] | None, responder: Responder, error: BaseException
) -> None:
    """What a failed turn does with its "Diagnosing …" post, in flight or landed.

    A crash says so in its place. A cancelled turn (a worker stopping) lets a post under way
    land, and with it the journal's record of it, so the request's retry updates that
    message in place instead of leaving it spinning beside a new one; cancelled again (the
    worker waits `RECANCEL_S` for a turn to wind down), it cuts the post short, and nothing
    appears after the turn has ended.
    """
    if placeholder is None:
        return
    if isinstance(error, asyncio.CancelledError):
        try:
            await posted(asyncio.shield(placeholder))
        except asyncio.CancelledError:
            placeholder.cancel()
            await asyncio.wait({placeholder})
            raise
    elif ref := await posted(placeholder):
        await responder.update(ref, Notice(CRASHED))
