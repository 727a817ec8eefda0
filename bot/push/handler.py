"""The worker's side of the push: diagnose what a watch or an alert found, and post it once.

A `push` item names workloads of one project on one cluster and the channel to post in. Each
is diagnosed with the service account, but only within what the channel was given: a
workload of another cluster, project or kind is never shown there (`PushDiagnosis`), nor any
department's quota and usage (which sum other projects'), and, for a watch made in chat,
nothing its subscriber's own access does not read now (`bot.push.subscriber`). Then the
`Planner` says where the answer goes (a new message, the thread of the same failure with its
running count, a storm's summary thread, or the hour's overflow thread) and `JournaledPosts`
posts it, once across attempts. The thread keeps the report as an asked answer's thread
does, each answer of a storm too, so its buttons (all evidence, check again) act on it for
whoever may read the workload, saved under the key and the lock a click on them computes
and waits for (`_answer`; a DM's top level is its one conversation, `Poster.click_thread`).
A `notice` item (a watch stopped or narrowed) is one message of its own, posted once.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from datetime import UTC, datetime

import structlog

from bot.authz import Authorizer
from bot.conversation import (
    Answer,
    Notice,
    ReportReply,
    StateStore,
    ThreadKey,
)
from bot.conversation.answers import pushed
from bot.conversation.store import ThreadBusy
from bot.durable.flight import Flights
from bot.ops.audit import AuditSink, LogAuditSink
from bot.ops.metrics import PUSH_LAG, PUSH_POSTS, PUSH_SUPPRESSED
from bot.push.alert_answers import RESOLVED_GRACE_S, AlertResolver, ResolvedAlerts
from bot.push.diagnosing import LOOKBACK, PushDiagnosis, slots_of
from bot.push.item import AlertSpec, NoticeSpec, PushSpec, Target
from bot.push.plan import Plan, Planner
from bot.push.posters import Poster, Posters
from bot.push.posts import JournaledPosts
from bot.push.wording import fingerprint, recurrence_note, source_note, storm_summary
from bot.work import Journal, JournalState, WorkItem
from diagnosis import (
    KubeConnector,
    Report,
    RunaiReader,
)

__all__ = ["PushWork"]


class PushWork(ResolvedAlerts):
    """The `Handler` for items whose platform is "push"."""

    def __init__(
        self,
        *,
        runai: RunaiReader,
        kube: KubeConnector | None,
        store: StateStore,
        planner: Planner,
        posters: Posters,
        authorizer: Authorizer,
        alerts: AlertResolver | None = None,
        flights: Flights | None = None,
        audit: AuditSink | None = None,
        deadline_s: float = 30.0,
        clock: Callable[[], datetime | None] = lambda: None,
        resolution_wait_s: float | None = None,
        conversation_wait_s: float | None = None,
    ) -> None:
        """`authorizer` checks the subscriber of a watch made in chat.

        `resolution_wait_s`: a resolution's wait for its firing alert's answer (by default
        the diagnosis deadline and `RESOLVED_GRACE_S`). `conversation_wait_s`: how long an
        answer waits for the lock of the conversation it is kept in (a DM's, busy with a
        person's turn) while holding its group's; under the planner's own wait (half of it
        by default), so the next failure of the group never goes on without it.
        """
        wait = planner.lock_wait_s / 2 if conversation_wait_s is None else conversation_wait_s
        if not 0 < wait < planner.lock_wait_s:
            raise ValueError("conversation_wait_s must be under the planner's lock wait")
        self._conversation_wait_s = wait
        self._store = store
        self._diagnose = PushDiagnosis(
            runai=runai,
            kube=kube,
            authorizer=authorizer,
            flights=flights,
            audit=audit or LogAuditSink(),
            deadline_s=deadline_s,
            clock=clock,
        )
        self._planner, self._posters, self._alerts = planner, posters, alerts
        self._resolution_wait_s = (
            deadline_s + RESOLVED_GRACE_S if resolution_wait_s is None else resolution_wait_s
        )
        self._log = structlog.get_logger(__name__)

    async def run(self, item: WorkItem, journal: Journal, state: JournalState) -> bool:
        """See `Handler.run`: nobody asked, so nobody is ever told to ask again (True)."""
        await self._push(item, journal, state)
        return True

    async def _push(self, item: WorkItem, journal: Journal, state: JournalState) -> None:
        if item.kind == "notice":
            await self._notice(NoticeSpec.model_validate(item.responder), journal, state)
            return
        spec = await self._spec(item, journal, state)
        if spec is None:
            return
        poster = self._poster(spec.target)
        if poster is None:
            return
        shown = [(w, r) for w in spec.workload_ids if (r := await self._diagnose(spec, w))]
        if not shown:
            if spec.alert_key and self._alerts is not None:
                await self._alerts.dropped(spec.alert_key)
            return
        posts = JournaledPosts(poster, spec.target, journal, state)
        if len(spec.workload_ids) == 1:
            await self._single(item.id, spec, shown[0][1], posts)
        elif len(shown) > spec.storm_over:  # only what the channel may see counts
            await self._storm(item, spec, [r for _, r in shown], posts)
        else:  # too few left for a storm: each on its own, planned apart
            for workload_id, report in shown:
                await self._single(f"{item.id}:{workload_id}", spec, report, posts)

    async def _spec(self, item: WorkItem, journal: Journal, state: JournalState) -> PushSpec | None:
        """The workloads to post: the item's, or a firing alert's (None: nothing to post)."""
        if item.kind != "alert":
            return PushSpec.model_validate(item.responder)
        alert = AlertSpec.model_validate(item.responder)
        if self._alerts is None:
            self._log.warning("push_alert_without_resolver")
            return None
        if alert.status == "resolved":
            await self._resolved(alert, journal, state)
            return None
        await self._alerts.started(alert.key)
        found = await self._alerts.resolve(alert)
        if found is None:
            await self._alerts.dropped(alert.key)
        return found

    def _poster(self, target: Target) -> Poster | None:
        """The poster of `target`'s platform, None (logged) when this process has none."""
        poster = self._posters.get(target.platform)
        if poster is None or (target.platform == "teams" and not target.service_url):
            self._log.warning("push_platform_not_served", platform=target.platform)
            return None
        return poster

    async def _notice(self, spec: NoticeSpec, journal: Journal, state: JournalState) -> None:
        poster = self._poster(spec.target)
        if poster is None:
            return
        await JournaledPosts(poster, spec.target, journal, state).post(
            Notice(spec.text), thread=None
        )
        PUSH_POSTS.labels(source="watch", mode="notice").inc()
        self._log.info("push_notice_posted", channel=spec.target.channel)

    async def give_up(self, item: WorkItem, state: JournalState, text: str) -> None:
        """See `Handler.give_up`: nobody asked, so nobody is told; it is logged."""
        self._log.error("push_given_up", kind=item.kind, reason=text, posts=len(state.posts))

    def _reply(self, spec: PushSpec, report: Report, *notes: str) -> ReportReply:
        cluster = spec.cluster_name or spec.cluster_id
        why = source_note(spec.source, project=spec.project, cluster=cluster)
        return ReportReply(report, LOOKBACK, (*notes, why), cluster_name=spec.cluster_name)

    async def _single(
        self, plan_id: str, spec: PushSpec, report: Report, posts: JournaledPosts
    ) -> None:
        group = fingerprint(spec.project, report)
        async with self._planner.locked(f"{spec.target.ident()}:{group}"):
            plan = await self._planner.plan(plan_id, spec.target, group)
            thread = plan.thread
            notes: tuple[str, ...] = ()
            if plan.mode == "group":
                notes = (recurrence_note(plan.count, plan.first_at, time.time()),)
                PUSH_SUPPRESSED.labels(reason="grouped").inc()
            elif plan.mode == "overflow":
                thread = await self._overflow(spec, plan, posts)
            try:
                thread = await self._answer(spec, self._reply(spec, report, *notes), posts, thread)
            except ThreadBusy:
                if plan.mode != "overflow" and posts.untouched:
                    await self._planner.forget(plan_id)  # retried: planned again, then
                raise  # left pending, tried again later; the group's lock is let go now
            if plan.mode != "overflow":
                await self._planner.joined(spec.target, group, thread, plan_id, plan)
        if spec.alert_key and self._alerts is not None:
            await self._alerts.posted(spec.alert_key, spec.target, thread)
        self._posted(spec, report, plan.mode, posts)

    async def _overflow(self, spec: PushSpec, plan: Plan, posts: JournaledPosts) -> str | None:
        PUSH_SUPPRESSED.labels(reason="rate_limited").inc()
        if not plan.overflow_root:
            return plan.thread
        text = (
            f"More than {self._planner.max_posts_per_h} failures were posted in this channel "
            "in the last hour; the rest of this hour's answers are in this thread."
        )
        _, thread = await posts.post(Notice(text), thread=None)
        await self._planner.overflowed(spec.target, thread)
        return thread

    async def _storm(
        self, item: WorkItem, spec: PushSpec, reports: list[Report], posts: JournaledPosts
    ) -> None:
        plan = await self._planner.plan(item.id, spec.target, None, storm=True)
        thread = plan.thread
        if plan.mode == "overflow":
            thread = await self._overflow(spec, plan, posts)
        summary = Notice(storm_summary(spec.project, spec.window, reports))
        _, thread = await posts.post(summary, thread=thread)  # no buttons: nothing to click
        key = spec.target.key(posts.click_thread(thread) or thread)
        async with self._conversation(key):  # see `_answer`
            for report in reports:
                await posts.post(self._reply(spec, report), thread=thread)
                self._posted(spec, report, "storm", posts)
            await self._remember(spec, reports, key)  # each answer, for its own buttons

    async def _answer(
        self, spec: PushSpec, reply: ReportReply, posts: JournaledPosts, thread: str | None
    ) -> str:
        """Post `reply` in `thread` (None: a new thread) and save it as that thread's state.

        Both under the lock a click on its buttons waits for: the thread's, or, when the
        post starts a thread (its ID is known only once posted), the channel's `new_root`,
        which a click that finds no state waits for. So a click the moment the post shows
        acts on this answer, never on none or the previous one; and the state is saved
        only after the post, so a crash in between leaves none claiming it (the retry
        updates the journaled post, then saves). A post whose click continues a known
        conversation (a DM's top level) takes that conversation's lock and is kept there.
        """
        target = spec.target
        known = posts.click_thread(thread)
        key = target.key(known) if known else target.key("").new_root()
        async with self._conversation(key):
            _, thread = await posts.post(reply, thread=thread)
            await self._remember(spec, [reply.report], target.key(known or thread))
        return thread

    @asynccontextmanager
    async def _conversation(self, key: ThreadKey) -> AsyncIterator[None]:
        """Hold `key`'s lock, waited for only `conversation_wait_s` (then `ThreadBusy`)."""
        async with AsyncExitStack() as held:
            try:
                await held.enter_async_context(
                    self._store.lock(key, wait_s=self._conversation_wait_s)
                )
            except ThreadBusy:
                self._log.warning("push_conversation_busy", thread=key.thread)
                raise ThreadBusy("a turn still holds the conversation: tried again") from None
            yield

    async def _remember(self, spec: PushSpec, reports: list[Report], key: ThreadKey) -> None:
        """Keep the thread's answers, as an asked one's, so their buttons and follow-ups work.

        Under the lock a click waits for (`_answer`); it saves only what was posted, added
        to what the conversation already keeps (`bot.conversation.answers.pushed`).
        """
        try:
            state = await self._store.load(key)
            for report in reports:
                workload_id = report.workload.id if report.workload else spec.workload_ids[0]
                slots = slots_of(spec, workload_id)
                state = pushed(state, Answer(report=report, slots=slots, lookback=LOOKBACK))
            if state is not None:
                await self._store.save(
                    key, state.model_copy(update={"updated_at": datetime.now(UTC)})
                )
        except Exception:  # noqa: BLE001 - posted already; only the buttons lose their context
            self._log.warning("push_state_not_saved", exc_info=True)

    def _posted(self, spec: PushSpec, report: Report, mode: str, posts: JournaledPosts) -> None:
        PUSH_POSTS.labels(source=spec.source, mode=mode).inc()
        changed = report.workload.phase_updated_at if report.workload else None
        if changed is not None and not posts.replayed:
            PUSH_LAG.observe(max(0.0, time.time() - changed.timestamp()))
        self._log.info(
            "push_posted",
            source=spec.source,
            mode=mode,
            channel=spec.target.channel,
            workload_id=report.workload.id if report.workload else None,
        )
