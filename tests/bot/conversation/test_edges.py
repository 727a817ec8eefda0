"""The engine's rulings at the front ends' edges, table by table (`bot.conversation.edges`).

Slack and Teams only translate these: who may click, which plain replies the engine takes,
what the asker is told when a turn fails and when the work queue answers.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field, replace
from typing import cast

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from bot.app.demo.scenarios import bundled_scenario
from bot.conversation import (
    PUBLISH,
    RERUN,
    SHOW_EVIDENCE,
    ConversationEngine,
    ConversationState,
    Incoming,
    MemoryStore,
    Reply,
    StoreUnavailable,
    ThreadKey,
    report_choice,
)
from bot.conversation.edges import (
    Ruling,
    admit,
    converse,
    failure_notice,
    not_taken_notice,
    taken_notice,
)
from bot.conversation.messages import (
    BUSY,
    CRASHED,
    LOST_CONTEXT,
    QUEUE_FULL,
    STATE_NOT_SAVED,
    STORE_BUSY,
    STORE_BUSY_RETRYING,
    STORE_DOWN,
    STORE_RETRYING,
    describe_upstream,
    only_asker,
    queued,
)
from bot.conversation.store import StoreBusy, ThreadBusy
from bot.durable.connect import PoolExhausted
from bot.work import Enqueued, Intake, QueueUnavailable
from diagnosis import NotFound, UpstreamUnavailable
from tests.bot.conversation.harness import Harness, harness

DEMO = bundled_scenario("demo")
KEY = ThreadKey("test", "T1", "C1", "100.1")
#: A report button's target (`ActionTarget.to_value`): the answer it is on.
TARGET = '{"cluster_id":"prod-a","workload_id":"w1","lookback":"24h"}'
UPSTREAM = UpstreamUnavailable("down", operation="get_workload", url="http://127.0.0.1/x")
NOT_FOUND = NotFound("gone", operation="get_workload", url="http://127.0.0.1/x", status=404)


class FailingStore(MemoryStore):
    """A memory store whose loads (and locks) fail with `error`, when one is set."""

    def __init__(self) -> None:
        super().__init__()
        self.error: StoreUnavailable | None = None

    async def load(self, key: ThreadKey) -> ConversationState | None:
        if self.error is not None:
            raise self.error
        return await super().load(key)

    def lock(  # type: ignore[override]
        self, key: ThreadKey, *, wait_s: float | None = None
    ) -> AbstractAsyncContextManager[None]:
        if self.error is not None:
            raise self.error
        return super().lock(key, wait_s=wait_s)


@pytest.fixture
async def demo() -> AsyncIterator[Harness]:
    async for h in harness(DEMO, store=FailingStore()):
        yield h


def _incoming(kind: str, user: str) -> Incoming:
    return {
        "pick": Incoming(KEY, user, choice="cluster:prod-a", message_ref="m1"),
        "publish": Incoming(KEY, user, choice=PUBLISH),
        "evidence": Incoming(KEY, user, choice=SHOW_EVIDENCE),
        "rerun": Incoming(KEY, user, choice=RERUN),
        "publish on": Incoming(KEY, user, choice=report_choice(PUBLISH, TARGET)),
        "evidence on": Incoming(KEY, user, choice=report_choice(SHOW_EVIDENCE, TARGET)),
        "rerun on": Incoming(KEY, user, choice=report_choice(RERUN, TARGET)),
        "mention": Incoming(KEY, user, text="why did x fail?"),
        "reply": Incoming(KEY, user, text="prod-a", directed=False),
        "reply in our thread": Incoming(KEY, user, text="prod-a", directed=False, bot_thread=True),
    }[kind]


TAKEN, NOTHING = "taken", "nothing"
#: (the thread, what came, from whom, store failure) -> the ruling: taken, nothing, or the notice
ADMISSION = [
    ("asked by U1", "pick", "U1", None, TAKEN),
    ("asked by U1", "pick", "U2", None, only_asker("@U1")),
    ("asked by U1", "publish", "U2", None, only_asker("@U1")),
    ("asked by U1", "evidence", "U2", None, TAKEN),
    ("asked by U1", "rerun", "U2", None, TAKEN),
    ("asked by U1", "publish on", "U2", None, only_asker("@U1")),
    ("asked by U1", "evidence on", "U2", None, TAKEN),  # the answer's buttons are anyone's
    ("asked by U1", "rerun on", "U2", None, TAKEN),
    ("asked by U1", "mention", "U2", None, TAKEN),
    ("asked by U1", "reply", "U2", None, TAKEN),
    ("asked by U1", "reply in our thread", "U2", None, TAKEN),
    ("unknown", "pick", "U1", None, LOST_CONTEXT),
    ("unknown", "evidence", "U1", None, TAKEN),  # the engine says there is nothing to show
    ("unknown", "mention", "U1", None, TAKEN),
    ("unknown", "reply", "U1", None, NOTHING),  # people talking in a thread not the bot's
    ("unknown", "reply in our thread", "U1", None, LOST_CONTEXT),
    ("unknown", "pick", "U1", StoreUnavailable("down"), STORE_DOWN),
    ("unknown", "pick", "U1", StoreBusy("pool"), STORE_BUSY),
    ("unknown", "reply", "U1", StoreUnavailable("down"), STORE_DOWN),
    ("unknown", "reply", "U1", ThreadBusy("held"), TAKEN),  # the engine then answers "busy"
    ("unknown", "pick", "U1", ThreadBusy("held"), BUSY),
    ("unknown", "mention", "U1", StoreUnavailable("down"), TAKEN),  # the turn tells it
]


@pytest.mark.parametrize("row", ADMISSION, ids=lambda row: " ".join(map(str, row[:4])))
async def test_admission(demo: Harness, row):
    thread, kind, user, failure, expected = row
    if thread == "asked by U1":
        await demo.store.save(KEY, ConversationState(started_by="U1", asker="U1"))
    cast("FailingStore", demo.store).error = failure
    incoming = _incoming(kind, user)
    ruling = await admit(
        demo.engine, incoming, mention=lambda u: f"@{u}", shown=False, told_once_s=60
    )
    if expected == TAKEN:
        assert ruling == Ruling(
            replace(incoming, bot_thread=False) if kind.startswith("reply") else incoming
        )
    elif expected == NOTHING:
        assert ruling == Ruling()
    else:
        assert (ruling.incoming, ruling.notice) == (None, expected)
        assert ruling.mentions is expected.startswith("Only")
        # told to ask again (a store failure, a busy thread): the same click is taken again
        assert ruling.done is (failure is None)


async def test_a_lost_thread_is_told_to_each_replier_once(demo: Harness):
    said = []
    for user in ("U1", "U1", "U2"):
        incoming = _incoming("reply in our thread", user)
        ruling = await admit(demo.engine, incoming, mention=str, shown=False, told_once_s=60)
        said.append((user, ruling.notice))
    assert said == [("U1", LOST_CONTEXT), ("U1", None), ("U2", LOST_CONTEXT)]


async def test_a_store_failure_after_a_public_post_is_told_as_not_saved(demo: Harness):
    cast("FailingStore", demo.store).error = StoreUnavailable("down")
    ruling = await admit(
        demo.engine, _incoming("pick", "U1"), mention=str, shown=True, told_once_s=60
    )
    assert ruling == Ruling(notice=STATE_NOT_SAVED)


#: (what the turn raised, whether anything was shown for it) -> what the asker is told, and
#: whether the turn counts as done (False: nothing done, they are told to ask again, and the
#: same request, the same click, is then taken again)
FAILURES = [
    (ThreadBusy("held"), False, BUSY, False),
    (ThreadBusy("held"), True, BUSY, True),  # an earlier attempt showed something
    (StoreBusy("pool"), False, STORE_BUSY, False),
    (StoreBusy("pool"), True, STATE_NOT_SAVED, True),
    (StoreUnavailable("down"), False, STORE_DOWN, False),
    (StoreUnavailable("down"), True, STATE_NOT_SAVED, True),
    (QueueUnavailable("down"), False, STORE_DOWN, False),
    (UPSTREAM, False, describe_upstream(UPSTREAM, "answer"), True),
    (NOT_FOUND, False, describe_upstream(NOT_FOUND, "answer"), True),
    (UPSTREAM, True, None, True),  # the engine replaced its progress notice already
    (RuntimeError("bug"), False, CRASHED, True),
    (RuntimeError("bug"), True, None, True),
]


@pytest.mark.parametrize(("error", "shown", "expected", "done"), FAILURES)
def test_failure_notice(error, shown, expected, done):
    assert failure_notice(error, shown=shown) == expected


@dataclass
class Asker:
    """A responder that records what the asker was told privately."""

    public: bool = False
    told: list[str] = field(default_factory=list)
    shown: list[tuple[str | None, Reply]] = field(default_factory=list)

    def thread(self) -> str | None:
        return None

    async def post(self, reply: Reply) -> str:
        self.shown.append((None, reply))
        return "1"

    async def update(self, ref: str, reply: Reply) -> None:
        self.shown.append((ref, reply))

    async def tell(self, text: str) -> None:
        self.told.append(text)


@dataclass
class Failing:
    """An engine whose every turn raises `error`."""

    error: Exception

    async def handle(self, incoming: Incoming, responder: object) -> None:  # noqa: ARG002
        raise self.error


@pytest.mark.parametrize(("error", "shown", "expected", "done"), FAILURES)
async def test_a_failed_turn_is_told_once_and_never_raised(error, shown, expected, done):
    asker = Asker(public=shown)
    engine = cast("ConversationEngine", Failing(error))
    assert await converse(engine, Incoming(KEY, "U1", text="hi"), asker) is done
    assert asker.told == ([] if expected is None else [expected])
    assert asker.shown == []


def _cause(error: Exception, cause: Exception) -> Exception:
    error.__cause__ = cause
    return error


#: (why the queue did not take it, will the platform deliver it again) -> what the asker is told
NOT_TAKEN = [
    (QueueUnavailable("down"), False, STORE_DOWN),
    (QueueUnavailable("down"), True, STORE_RETRYING),
    (_cause(QueueUnavailable("pool"), PoolExhausted("busy")), False, STORE_BUSY),
    (_cause(QueueUnavailable("pool"), PoolExhausted("busy")), True, STORE_BUSY_RETRYING),
    (_cause(QueueUnavailable("x"), RedisConnectionError("refused")), False, STORE_DOWN),
    (StoreBusy("pool"), False, STORE_BUSY),
    (StoreBusy("pool"), True, STORE_BUSY_RETRYING),
    (StoreUnavailable("down"), True, STORE_RETRYING),
]


@pytest.mark.parametrize(("error", "retrying", "expected"), NOT_TAKEN)
def test_not_taken_notice(error, retrying, expected):
    assert not_taken_notice(error, retrying=retrying) == expected


@pytest.mark.parametrize(
    ("taken", "expected"),
    [
        (Enqueued(Intake.ACCEPTED), None),
        (Enqueued(Intake.ACCEPTED, ahead=1), queued(1)),
        (Enqueued(Intake.ACCEPTED, ahead=7, depth=9), queued(7)),
        (Enqueued(Intake.DUPLICATE), None),
        (Enqueued(Intake.DUPLICATE, ahead=3), None),
        (Enqueued(Intake.FULL, depth=100), QUEUE_FULL),
    ],
)
def test_taken_notice(taken, expected):
    assert taken_notice(taken) == expected
