"""Slack requests survive a dead replica, a full queue and a busy worker (real HTTP, real Redis)."""

from __future__ import annotations

import signal

import httpx
import pytest

from bot.app.runtime import build_runtime
from bot.app.server import create_asgi_app
from bot.conversation.messages import GAVE_UP, QUEUE_FULL, expired, queued
from bot.work import RedisWorkQueue
from runai_sim.app import Simulator
from runai_sim.server import serve, serve_asgi
from tests.bot.durable.worker_process import STALLED_EVIDENCE, journaled, worker_process
from tests.bot.ops.test_audit import free_port
from tests.bot.slack.fake_slack import FakeSlack
from tests.bot.slack.harness import DEMO, SECRET, _settings, first_line, running_bots
from tests.bot.slack.signing import BOT_USER_ID, app_mention_event, event_body, slash_command_body

pytestmark = pytest.mark.e2e

ASK = "cluster=prod-a workload=training-job-42 project=ml-team"
STREAM = "{runai-why-work}:stream"


async def test_a_full_queue_tells_the_asker_at_once_and_a_waiting_one_their_place(
    fake_slack: FakeSlack, redis_url: str, redis_client
):
    async with running_bots(fake_slack, redis_url, embedded_worker=False, queue_max_items=3) as [
        bot
    ]:
        acks = []
        for i in range(4):
            body = slash_command_body(ASK, response_url=fake_slack.response_url(f"r{i}"))
            acks.append(await bot.send(body))
        assert [a.status_code for a in acks] == [200] * 4
        assert acks[0].text == ""  # taken, nothing ahead: nothing to say
        assert [a.json()["text"] for a in acks[1:]] == [queued(1), queued(2), QUEUE_FULL]
        assert {a.json()["response_type"] for a in acks[1:]} == {"ephemeral"}
        mention = app_mention_event(
            f"<@{BOT_USER_ID}> why did eval-harness fail", user="U1", channel="C1", ts="1.5"
        )
        assert (await bot.send(event_body(mention))).status_code == 200
        [told] = await fake_slack.wait_for_async("chat.postEphemeral")
        assert (told.text, told.body["user"]) == (QUEUE_FULL, "U1")
        assert fake_slack.calls("chat.postMessage") == []  # queued, not answered: no worker


@pytest.mark.parametrize(
    "stop",
    [
        pytest.param(signal.SIGKILL, id="kill-9: reclaimed after the idle time"),
        pytest.param(signal.SIGTERM, id="SIGTERM: handed back after the grace period"),
    ],
)
async def test_a_worker_stopped_mid_diagnosis_is_answered_once_by_another(
    fake_slack: FakeSlack, redis_url: str, redis_client, stop: signal.Signals
):
    """`runai-why worker` posts "Diagnosing…" and is stopped; another replica answers.

    The doomed worker reads a control plane whose evidence never comes (after the placeholder
    is posted), so it is still diagnosing when it stops; the survivor reads a prompt one
    serving the same scenario and updates the stopped worker's placeholder: one message, one
    answer.
    """
    slow = DEMO.model_copy(update={"faults": [STALLED_EVIDENCE]})
    async with (
        running_bots(fake_slack, redis_url, embedded_worker=False, queue_claim_idle_s=0.5) as [web],
        serve(Simulator(slow)) as slow_url,
    ):
        doomed = await worker_process(_slack_env(fake_slack), slow_url, redis_url)
        try:
            await web.send(slash_command_body(ASK, response_url=fake_slack.response_url("r")))
            [placeholder] = await fake_slack.wait_for_async("chat.postMessage", timeout=30)
            assert (placeholder.text or "").startswith("Diagnosing training-job-42")
            # Killed between Slack taking the post and the journal recording it (one round
            # trip) is the window left; past it, the placeholder is durable:
            await journaled(redis_client, placeholder.response["ts"])
        finally:
            doomed.send_signal(stop)
            await doomed.wait()
        assert fake_slack.calls("chat.update") == []
        assert await redis_client.xlen(STREAM) == 1  # still queued: nothing lost
        pending = (await redis_client.xpending(STREAM, "workers"))["pending"]
        assert pending == (0 if stop is signal.SIGTERM else 1)  # handed back, or left held
        settings = _settings(
            fake_slack, web.runai_url, redis_url, queue_claim_idle_s=0.5, embedded_worker=True
        )
        survivor = build_runtime(settings, clock=lambda: DEMO.now)
        async with serve_asgi(create_asgi_app(survivor), lifespan="on"):
            [answer] = await fake_slack.wait_for_async("chat.update", timeout=20)
            assert answer.body["ts"] == placeholder.response["ts"]
            assert first_line(answer).startswith("OOM_KILLED")
            help_url = fake_slack.response_url("s")
            await web.send(slash_command_body("help", response_url=help_url))
            await fake_slack.wait_for_async("response_url", where=lambda c: c.key == "s")
        assert len(fake_slack.calls("chat.postMessage")) == 1  # never a second placeholder
        assert len(fake_slack.calls("chat.update")) == 1
        assert await redis_client.xlen(STREAM) == 0


async def test_a_placeholder_posted_but_never_journaled_is_replaced_by_the_next_attempt(
    fake_slack: FakeSlack, redis_url: str, redis_client
):
    """Killed while Slack's reply to its "Diagnosing…" post was on the way: never journaled.

    The ts never reached the journal. The next attempt finds the post by the item ID it carries and
    answers there: one message, one answer, nothing left spinning.
    """
    slow = DEMO.model_copy(update={"faults": [STALLED_EVIDENCE]})
    async with (
        running_bots(fake_slack, redis_url, embedded_worker=False, queue_claim_idle_s=0.5) as [web],
        serve(Simulator(slow)) as slow_url,
    ):
        doomed = await worker_process(_slack_env(fake_slack), slow_url, redis_url)
        try:
            fake_slack.delay_next("chat.postMessage", 10)  # Slack has it; the worker waits
            await web.send(slash_command_body(ASK, response_url=fake_slack.response_url("r")))
            [placeholder] = await fake_slack.wait_for_async("chat.postMessage", timeout=30)
            assert (placeholder.text or "").startswith("Diagnosing training-job-42")
        finally:
            doomed.send_signal(signal.SIGKILL)
            await doomed.wait()
        [journal] = await redis_client.keys("{runai-why-work}:job:*") or [None]
        assert journal is None or await redis_client.hget(journal, "post:0") is None
        settings = _settings(
            fake_slack, web.runai_url, redis_url, queue_claim_idle_s=0.5, embedded_worker=True
        )
        survivor = build_runtime(settings, clock=lambda: DEMO.now)
        async with serve_asgi(create_asgi_app(survivor), lifespan="on"):
            [answer] = await fake_slack.wait_for_async("chat.update", timeout=20)
        assert answer.body["ts"] == placeholder.response["ts"]
        assert first_line(answer).startswith("OOM_KILLED")
        assert len(fake_slack.calls("chat.postMessage")) == 1  # never a second placeholder
        texts = [m.get("text", "") for m in fake_slack.messages(placeholder.body["channel"])]
        assert not [t for t in texts if t.startswith("Diagnosing")], texts
        assert await redis_client.xlen(STREAM) == 0


@pytest.mark.timeout(180)  # a process of its own that imports, diagnoses and draws a chart
async def test_a_worker_serves_the_metrics_of_the_diagnoses_it_runs(
    fake_slack: FakeSlack, redis_url: str, redis_client
):
    """Split deployments count diagnoses where they run: `runai-why worker`'s /metrics."""
    port = free_port()
    async with running_bots(fake_slack, redis_url, embedded_worker=False) as [web]:
        worker = await worker_process(
            _slack_env(fake_slack), web.runai_url, redis_url, metrics_port=port
        )
        try:
            await web.send(slash_command_body(ASK, response_url=fake_slack.response_url("r")))
            [answer] = await fake_slack.wait_for_async("chat.update", timeout=120)
            assert first_line(answer).startswith("OOM_KILLED")
            # The turn ends (and is counted) once its chart follows the answer.
            await fake_slack.wait_for_async("files.completeUploadExternal", timeout=60)
            async with httpx.AsyncClient() as http:
                scraped = await http.get(f"http://127.0.0.1:{port}/metrics", timeout=5)
        finally:
            worker.send_signal(signal.SIGTERM)
            await worker.wait()
    assert scraped.status_code == 200
    counted = 'runai_why_diagnoses_total{category="OOM_KILLED",outcome="diagnosed"} 1.0'
    assert counted in scraped.text.splitlines()


def _slack_env(fake_slack: FakeSlack) -> dict[str, str]:
    return {
        "SLACK_BOT_TOKEN": "xoxb-e2e-token",
        "SLACK_SIGNING_SECRET": SECRET,
        "SLACK_API_URL": fake_slack.base_url,
    }


async def _delivered_twice_before(redis_client) -> None:
    """Two consumers took the item and died (the second one reclaimed it from the first)."""
    queue = RedisWorkQueue(redis_client, max_items=10, journal_ttl_s=60)
    assert len(await queue.take("dead-1", 1, 0)) == 1
    assert len(await queue.reclaim("dead-2", 0, 1)) == 1


async def _nothing(redis_client) -> None:
    return None


@pytest.mark.parametrize(
    ("settings", "before", "told", "dead_letters"),
    [
        pytest.param(
            {"queue_max_deliveries": 2},
            _delivered_twice_before,
            GAVE_UP,
            1,
            id="failed every time: dead-lettered",
        ),
        pytest.param(
            {"queue_deadline_s": 0.001},
            _nothing,
            expired(0.001),
            0,
            id="waited past its deadline: dropped",
        ),
    ],
)
async def test_an_item_given_up_on_is_told_to_its_asker_privately(  # noqa: PLR0917 - a table
    fake_slack: FakeSlack, redis_url: str, redis_client, settings, before, told, dead_letters
):
    options = {"queue_claim_idle_s": 0.3} | settings
    async with running_bots(fake_slack, redis_url, embedded_worker=False, **options) as [web]:
        await web.send(slash_command_body(ASK, response_url=fake_slack.response_url("r")))
        await before(redis_client)
        worker = _settings(fake_slack, web.runai_url, redis_url, embedded_worker=True, **options)
        async with serve_asgi(create_asgi_app(build_runtime(worker)), lifespan="on"):
            [notice] = await fake_slack.wait_for_async("response_url", where=lambda c: c.key == "r")
        assert (notice.body["text"], notice.body["response_type"]) == (told, "ephemeral")
        assert fake_slack.calls("chat.postMessage") == []
        assert await redis_client.xlen(STREAM) == 0
        assert await redis_client.xlen("{runai-why-work}:dead") == dead_letters
