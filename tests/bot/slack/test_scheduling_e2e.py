"""The Pending and preemption answers in Slack, end to end over real HTTP.

A question as people type it ("why is X still pending?") reaches the bot signed as Slack
signs it; the bot reads the simulator through the real client and answers in the thread
with the reason and the numbers. The preemptor is named only to whoever may read it, and a
department's quota and usage only to whoever may read that department (bob: tenant Viewer,
which reads departments; alice: not research, whose project vision she reads by a project
rule), also when one asks for all the evidence of the other's answer.
"""

from __future__ import annotations

import json

import pytest

from tests.bot.slack.fake_slack import BOT_USER_ID, FakeSlack
from tests.bot.slack.harness import Bot, first_line, running_bots
from tests.bot.slack.signing import app_mention_event, event_body

pytestmark = pytest.mark.e2e

ALICE = "U5"  # alice@acme.ai: reads ml-team and vision, not nlp


async def _ask(bot: Bot, text: str, *, user: str = "U1", ts: str = "1700000300.000100") -> str:
    """Mention the bot with `text`; the answer's whole message (text and blocks) as text."""
    mention = app_mention_event(f"<@{BOT_USER_ID}> {text}", user=user, channel="C1", ts=ts)
    assert (await bot.send(event_body(mention))).status_code == 200
    [posted] = await bot.slack.wait_for_async("chat.postMessage")
    assert posted.body["thread_ts"] == ts
    [updated] = await bot.slack.wait_for_async("chat.update")
    assert updated.body["ts"] == posted.response["ts"]
    return first_line(updated) + "\n" + json.dumps(updated.blocks, ensure_ascii=False)


async def test_why_is_it_still_pending_is_answered_with_the_reason_and_the_numbers(
    fake_slack: FakeSlack, redis_url: str, redis_client
):
    async with running_bots(fake_slack, redis_url) as [bot]:
        answer = await _ask(
            bot, "why is vit-pretrain-xl in vision still pending on cluster prod-a?"
        )
    line_one, blocks = answer.split("\n", 1)
    assert line_one.startswith("PENDING · NODE_POOL_FULL")
    assert '"text": "PENDING · NODE_POOL_FULL · vit-pretrain-xl"' in blocks  # the header
    for figure in (
        "Node pool default is full (2 of 56 GPUs free, 4 asked for)",
        "Requested: 4 GPUs",
        "Node pool default: 2 of 56 GPUs free",
        "deserved 16 GPUs, limit unlimited, over-quota weight 1; allocated 9",
        "Pending for 48m",
        # bob may read department research: its position is read, shown and decides too.
        "though the project and its department research are within quota",
        "Department research in node pool default: deserved 36 GPUs, allocated 18",
    ):
        assert figure in blocks, figure
    assert "get_node_telemetry" in blocks  # every figure cites where it came from
    assert "Waiting should fix it" in blocks


VIT = "why is vit-pretrain-xl in vision still pending on cluster prod-a?"


#: What research's figures look like in an answer: its usage sums nlp's too.
async def _evidence_asked_by_alice(bot: Bot, root: str = "1700000300.000100") -> str:
    """Alice says "show all evidence" in the thread at `root`: what is posted there, as text."""
    again = app_mention_event(
        f"<@{BOT_USER_ID}> show all evidence",
        user=ALICE,
        channel="C1",
        ts="1700000301.000100",
        thread_ts=root,
    )
    assert (await bot.send(event_body(again))).status_code == 200
    [_, shown] = await bot.slack.wait_for_async("chat.postMessage", count=2)
    assert shown.body.get("thread_ts") == root
    return json.dumps(shown.body, ensure_ascii=False)


RESEARCH_FIGURES = ("deserved 36 GPUs", "allocated 18", "get_department")


def _alice(fake_slack: FakeSlack) -> None:
    fake_slack.users[ALICE] = {"profile": {"display_name": "alice", "email": "alice@acme.ai"}}


async def test_someone_who_may_not_read_the_department_gets_it_as_the_missing_item(
    fake_slack: FakeSlack, redis_url: str, redis_client
):
    _alice(fake_slack)
    async with running_bots(fake_slack, redis_url) as [bot]:
        answer = await _ask(bot, VIT, user=ALICE)
    line_one, blocks = answer.split("\n", 1)
    assert line_one.startswith("PENDING · UNKNOWN")
    for said in (
        "Node pool default has 2 of 56 GPUs free and it asks for 4",
        "whether department research is too is not known",
    ):
        assert said in blocks, said
    for figure in RESEARCH_FIGURES:
        assert figure not in blocks, figure
    # Nothing promised that the unknown department could contradict.
    assert "Waiting should fix it" not in blocks
    assert "the scheduler should reclaim;" not in blocks


async def test_all_the_evidence_of_a_readers_answer_leaves_the_department_out_for_others(
    fake_slack: FakeSlack, redis_url: str, redis_client
):
    """Bob's answer used research's figures; Alice asks for all its evidence in his thread."""
    _alice(fake_slack)
    async with running_bots(fake_slack, redis_url) as [bot]:
        answer = await _ask(bot, VIT)
        assert "deserved 36 GPUs, allocated 18" in answer
        said = await _evidence_asked_by_alice(bot)
    for figure in RESEARCH_FIGURES:
        assert figure not in said, figure
    assert "not read for you" in said


@pytest.mark.parametrize(("user", "named"), [("U1", True), (ALICE, False)], ids=["bob", "alice"])
async def test_the_preemptor_is_named_only_to_whoever_may_read_it(
    fake_slack: FakeSlack, redis_url: str, redis_client, user: str, named: object
):
    fake_slack.users[ALICE] = {"profile": {"display_name": "alice", "email": "alice@acme.ai"}}
    async with running_bots(fake_slack, redis_url) as [bot]:
        answer = await _ask(
            bot, "what happened to llama-sft-qlora in ml-team on cluster prod-a?", user=user
        )
    assert answer.startswith("PREEMPTED · RECLAIM_FAIR_SHARE")
    assert ("serve-llama-70b" in answer) is named
    assert ("a workload in another project" in answer) is not named
    assert "ml-team uses 14 GPUs with a quota of 12 GPUs" in answer  # her own project's
    # nlp's queue (the reclaimer's project) is the reclaimer's: its figures with it.
    assert ("8 GPUs with a quota of 16" in answer) is named
    assert ("8 of its 16 quota GPUs" in answer) is named


async def test_a_teammate_asking_for_the_evidence_sees_only_the_preemptor_they_may_read(
    fake_slack: FakeSlack, redis_url: str, redis_client
):
    """A teammate's "show all evidence" names only the preemptor they may read.

    Bob's answer names the preemptor; Alice, who may not read its project, asks for all of
    the evidence in his thread: the preemptor is checked again, with her access.
    """
    fake_slack.users[ALICE] = {"profile": {"display_name": "alice", "email": "alice@acme.ai"}}
    async with running_bots(fake_slack, redis_url) as [bot]:
        answer = await _ask(bot, "what happened to llama-sft-qlora in ml-team on cluster prod-a?")
        assert "serve-llama-70b" in answer
        said = await _evidence_asked_by_alice(bot)
    assert "serve-llama-70b" not in said
    assert "a workload in another project" in said
    assert "8 GPUs with a quota of 16" not in said  # nor its project's queue figures
    assert "[the reclaimer's queue: not shown here]" in said
