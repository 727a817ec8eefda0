"""Per-user authorization end to end: signed requests, the fake Slack, the simulator, Redis.

The demo's access model: bob@acme.ai (the default asker of the Slack tests) reads every
project; alice@acme.ai reads ml-team and vision but not nlp. A denial is a private reply
only, audited, and names no workload it did not get from the asker.
"""

from __future__ import annotations

from typing import Any

import pytest

from bot.conversation import PUBLISH, report_action
from bot.ops.audit import read_audit
from bot.ops.audit_events import AUTHZ_DENIED_OUTCOME
from bot.ops.metrics import REGISTRY
from bot.slack.responder import CHOICE_ACTION
from runai_sim.app import Simulator
from tests.bot.slack.fake_slack import BOT_USER_ID, Call, FakeSlack
from tests.bot.slack.harness import DEMO, Bot, running_bots, settle
from tests.bot.slack.signing import app_mention_event, block_action_body, event_body

pytestmark = pytest.mark.e2e

ALICE, GUEST, EXTERNAL = "U5", "U6", "U8"
CLUSTER = "prod-a"
NLP = {
    w.workload["name"]: w.workload["id"]
    for w in DEMO.workloads
    if w.workload["projectName"] == "nlp"
}
NLP_NAMES = sorted(NLP)
PHASES = {str(w.workload.get("phase")) for w in DEMO.workloads}
BY_NAME_DENIAL = (  # none of the asker's projects: said without telling whether it exists
    "No project called nlp on prod-a is readable by you. If it is the right name, ask your "
    "Run:ai administrator for read access."
)
BY_ID_DENIAL = (
    f"You don't have read access to workload {NLP['t5-distill']} in Run:ai; "
    "ask your Run:ai administrator."
)


def _person(email: str, **flags: Any) -> dict[str, Any]:
    return {"profile": {"display_name": email, "email": email}, **flags}


@pytest.fixture
def people(fake_slack: FakeSlack) -> FakeSlack:
    fake_slack.users[ALICE] = _person("alice@acme.ai")
    fake_slack.users[GUEST] = _person("bob@acme.ai", is_restricted=True)
    fake_slack.users[EXTERNAL] = _person("bob@acme.ai", team_id="T0OTHER")
    return fake_slack


async def _mention(bot: Bot, text: str, *, user: str, ts: str, channel: str = "C1") -> None:
    event = app_mention_event(f"<@{BOT_USER_ID}> {text}", user=user, channel=channel, ts=ts)
    assert (await bot.send(event_body(event))).status_code == 200


async def _private_only(bot: Bot, *, count: int = 1) -> list[Call]:
    """The private replies, once the bot is idle, after checking nothing was public."""
    told = await bot.slack.wait_for_async("chat.postEphemeral", count=count)
    await settle(bot)
    assert bot.slack.calls("chat.postMessage") == []
    assert bot.slack.calls("chat.update") == []
    return told


def _leaks(text: str) -> list[str]:
    """Workload names or phases of the nlp project that appear in `text`."""
    return [word for word in [*NLP_NAMES, *PHASES] if word in text]


async def test_an_allowed_user_gets_the_answer(people: FakeSlack, redis_url, redis_client):
    async with running_bots(people, redis_url) as [bot]:
        await _mention(
            bot,
            f"why did training-job-42 in ml-team fail on cluster {CLUSTER}?",
            user=ALICE,
            ts="1700007000.000100",
        )
        [updated] = await people.wait_for_async("chat.update")
        assert (updated.text or "").startswith("OOM_KILLED")
    assert people.calls("chat.postEphemeral") == []


@pytest.mark.parametrize(
    ("ask", "denied"),
    [
        pytest.param(
            "why did jupyter-alice in nlp fail on cluster prod-a?", BY_NAME_DENIAL, id="by-name"
        ),
        pytest.param(
            "why did jupyter-al in nlp fail on cluster prod-a?", BY_NAME_DENIAL, id="near-name"
        ),
        # By ID the project was read from the workload: not even that is said.
        pytest.param(
            f"why did {NLP['t5-distill']} fail on cluster prod-a?", BY_ID_DENIAL, id="by-id"
        ),
    ],
)
async def test_a_denied_user_is_told_privately_and_nothing_leaks(
    people: FakeSlack, redis_url, redis_client, ask: str, denied: str
):
    async with running_bots(people, redis_url) as [bot]:
        await _mention(bot, ask, user=ALICE, ts="1700007100.000100")
        [told] = await _private_only(bot)
    text = told.text or ""
    assert told.body["user"] == ALICE
    assert text == denied
    assert _leaks(text) == []
    [denial] = [e for e in await read_audit(redis_client) if e.outcome == AUTHZ_DENIED_OUTCOME]
    assert (denial.user, denial.project, denial.reason) == (ALICE, "nlp", "no_read_access")
    assert denial.cluster_id == DEMO.clusters[0]["uuid"]


@pytest.mark.parametrize(
    ("user", "reason"),
    [
        pytest.param(GUEST, ("guest", "Guest accounts"), id="guest"),
        pytest.param(EXTERNAL, ("external", "other organisations"), id="external"),
    ],
)
async def test_guests_and_external_users_are_denied(
    people: FakeSlack, redis_url, redis_client, user: str, reason: tuple[str, str]
):
    denials = {"reason": reason[0]}
    before = REGISTRY.get_sample_value("runai_why_authz_denials_total", denials) or 0
    async with running_bots(people, redis_url) as [bot]:
        await _mention(
            bot,
            "why did training-job-42 in ml-team fail on cluster prod-a?",
            user=user,
            ts="1700007200.000100",
        )
        [told] = await _private_only(bot)
    assert reason[1] in (told.text or "")
    [denial] = [e for e in await read_audit(redis_client) if e.outcome == AUTHZ_DENIED_OUTCOME]
    assert (denial.user, denial.reason) == (user, reason[0])
    assert REGISTRY.get_sample_value("runai_why_authz_denials_total", denials) == before + 1


@pytest.mark.parametrize(
    ("path", "ask"),
    [
        pytest.param(
            "/api/v1/authorization/access-rules",
            "why did training-job-42 in ml-team fail on cluster prod-a?",
            id="rules-by-name",
        ),
        pytest.param(
            "/api/v1/users",
            f"why did {NLP['t5-distill']} fail on cluster prod-a?",
            id="users-by-id",
        ),
        pytest.param(
            "/api/v1/authorization/roles",
            "why did training-job-42 in ml-team fail on cluster prod-a?",
            id="roles-by-name",
        ),
    ],
)
async def test_failing_authorization_endpoints_fail_closed(
    fake_slack: FakeSlack, redis_url, redis_client, path: str, ask: str
):
    simulator = Simulator(DEMO)
    simulator.add_fault({"path": path, "status": 503})
    async with running_bots(fake_slack, redis_url, simulator=simulator) as [bot]:
        await _mention(bot, ask, user="U1", ts="1700007300.000100")
        [told] = await _private_only(bot)
    text = told.text or ""
    assert "could not be checked in Run:ai, so nothing is shown" in text
    assert _leaks(text) == []
    [denial] = [e for e in await read_audit(redis_client) if e.outcome == AUTHZ_DENIED_OUTCOME]
    assert denial.reason == "access_unchecked"


async def test_another_project_in_a_mapped_channel_is_private_until_posted_on_purpose(
    fake_slack: FakeSlack, redis_url, redis_client
):
    thread = "1700007400.000100"
    async with running_bots(fake_slack, redis_url, channel_projects={"C1": ["ml-team"]}) as [bot]:
        await _mention(
            bot, "why did jupyter-alice in nlp fail on cluster prod-a?", user="U1", ts=thread
        )
        report, offer = await _private_only(bot, count=2)
        assert "jupyter-alice" in (report.text or "")  # the asker may read nlp: the answer
        buttons = [e for b in offer.blocks if b["type"] == "actions" for e in b["elements"]]
        assert [report_action(b["value"])[0] for b in buttons] == [PUBLISH]
        assert buttons[0]["action_id"] == f"{CHOICE_ACTION}_0"
        click = block_action_body(
            buttons[0]["action_id"],
            buttons[0]["value"],
            user="U1",
            channel="C1",
            message_ts="1700007400.000900",
            thread_ts=thread,
            response_url=fake_slack.response_url("publish"),
        )
        assert (await bot.send(click)).status_code == 200
        [posted] = await fake_slack.wait_for_async("chat.postMessage")
    assert posted.body["thread_ts"] == thread
    assert (posted.text or "").splitlines()[0] == (report.text or "").splitlines()[0]


async def test_the_opt_out_shows_in_readyz_and_lets_a_member_through(
    people: FakeSlack, redis_url, redis_client
):
    async with running_bots(people, redis_url, authz_mode="off") as [bot]:
        ready = (await bot.http.get(f"{bot.url}/readyz")).json()
        await _mention(
            bot,
            "why did jupyter-alice in nlp fail on cluster prod-a?",
            user=ALICE,
            ts="1700007500.000100",
        )
        [updated] = await people.wait_for_async("chat.update")
    assert ready["authz_mode"] == "off"
    assert "jupyter-alice" in (updated.text or "")
