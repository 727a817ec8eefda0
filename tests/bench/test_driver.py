"""What counts as answered, answered twice, spinning and told, read from the fake Slack."""

from __future__ import annotations

import httpx

from bench.driver import Ask, outcomes, wait_until
from tests.bot.slack.fake_slack import FakeSlack

AUTH = {"Authorization": "Bearer xoxb-test"}


def _ask(index: int) -> Ask:
    return Ask(tag="t", index=index, user="U1", text="why", expect="OOM_KILLED · job-1", status=200)


def _post(slack: FakeSlack, channel: str, text: str) -> str:
    response = httpx.post(
        f"{slack.base_url}chat.postMessage", data={"channel": channel, "text": text}, headers=AUTH
    )
    return str(response.json()["ts"])


def _update(slack: FakeSlack, channel: str, ts: str, text: str) -> None:
    httpx.post(
        f"{slack.base_url}chat.update",
        data={"channel": channel, "ts": ts, "text": text},
        headers=AUTH,
    )


def test_each_asker_is_read_from_its_own_channel_and_response_url(fake_slack: FakeSlack):
    answered, spinning, twice, told, silent = (_ask(i) for i in range(5))
    ts = _post(fake_slack, answered.channel, "Diagnosing job-1…")
    _update(fake_slack, answered.channel, ts, "OOM_KILLED · job-1\nContainer trainer…")
    _post(fake_slack, spinning.channel, "Diagnosing job-1…")
    for _ in range(2):
        _post(fake_slack, twice.channel, "OOM_KILLED · job-1\n…")
    httpx.post(
        fake_slack.response_url(told.key), json={"text": "I am busy", "response_type": "ephemeral"}
    )
    _post(fake_slack, "COTHER", "OOM_KILLED · job-1")  # nobody's channel: ignored

    found = outcomes(fake_slack, [answered, spinning, twice, told, silent])

    assert (found[answered.key].answers, found[answered.key].spinning) == (1, 0)
    heard, answered_at = found[answered.key].first_word_at, found[answered.key].answered_at
    assert heard is not None
    assert answered_at is not None
    assert heard < answered_at
    assert (found[spinning.key].answers, found[spinning.key].spinning) == (0, 1)
    assert found[spinning.key].answered_at is None
    assert found[twice.key].answers == 2
    assert [text for _, text in found[told.key].private] == ["I am busy"]
    assert found[told.key].answered_at is None
    assert found[silent.key].first_word_at is None
    assert found[silent.key].answers == found[silent.key].spinning == 0


def test_an_answer_for_another_workload_does_not_count(fake_slack: FakeSlack):
    ask = _ask(0)
    _post(fake_slack, ask.channel, "OOM_KILLED · job-10\n…")
    found = outcomes(fake_slack, [ask])
    assert found[ask.key].answered_at is None
    assert found[ask.key].first_word_at is not None


def test_a_deleted_placeholder_no_longer_spins(fake_slack: FakeSlack):
    ask = _ask(0)
    ts = _post(fake_slack, ask.channel, "Diagnosing job-1…")
    httpx.post(
        f"{fake_slack.base_url}chat.delete", data={"channel": ask.channel, "ts": ts}, headers=AUTH
    )
    assert outcomes(fake_slack, [ask])[ask.key].spinning == 0


async def test_waiting_ends_once_every_ask_is_settled(fake_slack: FakeSlack):
    answered, told, unacknowledged = _ask(0), _ask(1), _ask(2)
    unacknowledged.status = None
    async with httpx.AsyncClient() as http:
        await http.post(
            f"{fake_slack.base_url}chat.postMessage",
            data={"channel": answered.channel, "text": "OOM_KILLED · job-1"},
            headers=AUTH,
        )
        await http.post(fake_slack.response_url(told.key), json={"text": "busy"})
    found = await wait_until(fake_slack, [answered, told, unacknowledged], timeout_s=30)
    assert found[answered.key].answered_at is not None
    # without private_is_final, a private notice is not the end: wait for quiet instead
    found = await wait_until(fake_slack, [told], timeout_s=30, quiet_s=0.3, private_is_final=False)
    assert found[told.key].answered_at is None


def test_an_ask_has_its_own_channel_key_and_acknowledgement_time():
    ask = Ask(tag="st", index=7, user="U1", text="why", expect="X", sent=1.0)
    assert (ask.channel, ask.key, ask.ack_s) == ("CST00007", "st-7", None)
    ask.acked = 1.25
    assert ask.ack_s == 0.25
