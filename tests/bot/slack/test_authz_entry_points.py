"""Every Slack entry point x {allowed, denied by kind, denied by project}, end to end.

Each row is a real bot over HTTP with the fake Slack, the simulator serving the demo's access
model plus two people (`tests/bot/authz/people.py`) and a real Redis. The workload is a
Workspace in nlp: bob reads it, dave reads only nlp's inferences, alice nothing of nlp. A
thread's answer comes from bob asking by ID, so its workload name is typed by no one; in
channel C1 (`CHANNEL_PROJECTS` allows only ml-team there) that answer is private to bob.

Allowed, the person sees what they asked for. Denied, nothing of the workload reaches
anyone through their action: not its category, phase or evidence, nor its name or ID unless
they typed it; and a thread's answer is neither shown again nor replaced.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass

import pytest

from bot.conversation import PUBLISH, report_action
from bot.render.actions import RERUN, SHOW_ALL_EVIDENCE
from runai_sim.app import Simulator
from tests.bot.authz.people import (
    ACCESS,
    BY_ID,
    BY_NAME,
    CATEGORY,
    ENDS,
    ERIN,
    NOWHERE,
    TOLD,
    WORKLOAD,
    WORKLOAD_ID,
    Access,
    limit,
    people_scenario,
)
from tests.bot.slack.fake_slack import RESPONSE_URL, Call, FakeSlack
from tests.bot.slack.harness import Bot, running_bots, settle
from tests.bot.slack.signing import (
    BOT_USER_ID,
    app_mention_event,
    block_action_body,
    event_body,
    message_event,
    message_shortcut_body,
    slash_command_body,
)

pytestmark = pytest.mark.e2e

MAPPED, OPEN, DM = "C1", "C2", "D7"
ASKER, ERIN_USER = "U1", "UE"
#: Who acts in each row: U2 is another reader of everything (not the thread's asker).
USER = {Access.ALLOWED: "U2", Access.DENIED_BY_KIND: "UD", Access.DENIED_BY_PROJECT: "UA"}
PUBLIC = frozenset({"chat.postMessage", "chat.update"})
PRIVATE = frozenset({"chat.postEphemeral", RESPONSE_URL})
_ts = itertools.count(1)


def _ts_now() -> str:
    return f"17000090{next(_ts):02d}.000100"


@dataclass
class Row:
    """One table row: the bot, the simulator, and who acts with which access."""

    bot: Bot
    simulator: Simulator
    access: Access

    @property
    def user(self) -> str:
        return USER[self.access]

    def calls(self) -> list[Call]:
        return self.bot.slack.calls()


async def _mention(row: Row, text: str, *, user: str, channel: str, thread: str | None) -> None:
    event = app_mention_event(
        f"<@{BOT_USER_ID}> {text}", user=user, channel=channel, ts=_ts_now(), thread_ts=thread
    )
    assert (await row.bot.send(event_body(event))).status_code == 200


async def _answered(row: Row, channel: str, *, user: str = ASKER) -> tuple[str, list[Call]]:
    """`user` asks by ID in `channel`: (the thread, the answer's messages)."""
    root = _ts_now()
    event = app_mention_event(f"<@{BOT_USER_ID}> {BY_ID}", user=user, channel=channel, ts=root)
    await row.bot.send(event_body(event))
    if channel == OPEN:
        shown = await row.bot.slack.wait_for_async("chat.update")
    else:  # another project than the channel's: privately, with the offer to post it
        shown = await row.bot.slack.wait_for_async("chat.postEphemeral", count=2)
    assert CATEGORY in shown[0].text
    return root, shown


def _button(message: Call, *, action_id: str | None = None, value: str | None = None) -> dict:
    elements = [e for b in message.blocks if b["type"] == "actions" for e in b["elements"]]
    return next(
        e
        for e in elements
        if action_id in {None, e["action_id"]}
        and value in {None, report_action(e.get("value") or "")[0]}
    )


async def _press(row: Row, button: dict, *, user: str, channel: str, root: str, ts: str) -> None:
    body = block_action_body(
        button["action_id"],
        button.get("value", ""),
        user=user,
        channel=channel,
        message_ts=ts,
        thread_ts=root,
        response_url=row.bot.slack.response_url(f"press-{user}"),
    )
    assert (await row.bot.send(body)).status_code == 200


# ---------------------------------------------------------------- the entry points
# Each asks (or sets up bob's answer and acts on it) and returns how many calls came before
# the person's action; the answers' markers then count only from there.


async def ask_mention(row: Row) -> int:
    start = len(row.calls())
    await _mention(row, BY_ID, user=row.user, channel=OPEN, thread=None)
    return start


async def ask_slash(row: Row) -> int:
    start = len(row.calls())
    body = slash_command_body(
        BY_NAME, user=row.user, channel=OPEN, response_url=row.bot.slack.response_url("slash")
    )
    assert (await row.bot.send(body)).status_code == 200
    return start


async def ask_shortcut(row: Row) -> int:
    alert = {
        "ts": _ts_now(),
        "bot_id": "B-ALERTS",
        "text": "[FIRING:1] RunaiWorkloadFailed",
        "attachments": [
            {"fallback": "failed", "text": f"cluster=prod-a project=nlp workload={WORKLOAD}"}
        ],
    }
    start = len(row.calls())
    body = message_shortcut_body(
        alert, user=row.user, channel=OPEN, response_url=row.bot.slack.response_url("sc")
    )
    assert (await row.bot.send(body)).status_code == 200
    return start


async def ask_dm(row: Row) -> int:
    start = len(row.calls())
    event = message_event(BY_NAME, user=row.user, channel=DM, ts=_ts_now())
    assert (await row.bot.send(event_body(event))).status_code == 200
    return start


async def _pressed(row: Row, action_id: str) -> int:
    """Bob's public answer, then the person presses its button `action_id`."""
    root, [answer] = await _answered(row, OPEN)
    [working] = row.bot.slack.calls("chat.postMessage")
    start = len(row.calls())
    button = _button(answer, action_id=action_id)
    await _press(row, button, user=row.user, channel=OPEN, root=root, ts=working.response["ts"])
    return start


async def evidence_button(row: Row) -> int:
    return await _pressed(row, SHOW_ALL_EVIDENCE)


async def rerun_button(row: Row) -> int:
    return await _pressed(row, RERUN)


async def _typed(row: Row, text: str) -> int:
    """Bob's answer, private in the mapped channel, then the person mentions `text` there."""
    root, _ = await _answered(row, MAPPED)
    start = len(row.calls())
    await _mention(row, text, user=row.user, channel=MAPPED, thread=root)
    return start


async def evidence_typed(row: Row) -> int:
    return await _typed(row, "show all evidence")


async def lookback_typed(row: Row) -> int:
    return await _typed(row, "what about the last 7 days?")


async def publish_button(row: Row) -> int:
    """Erin is answered privately, then her access changes, then she posts it."""
    root, [_, offer] = await _answered(row, MAPPED, user=ERIN_USER)
    limit(row.simulator.scenario, row.access)
    start = len(row.calls())
    button = _button(offer, value=PUBLISH)
    await _press(row, button, user=ERIN_USER, channel=MAPPED, root=root, ts=_ts_now())
    return start


@dataclass(frozen=True)
class Entry:
    act: Callable[[Row], Awaitable[int]]
    shows: str
    """What the allowed person is shown (in any message of theirs)."""
    typed: tuple[str, ...] = ()
    """What of the workload the person typed themselves (it may be said back)."""
    only_private: bool = True
    """Denied, nothing at all is posted in the channel (not even a question)."""


ENTRIES = {
    "mention by id": Entry(ask_mention, CATEGORY, typed=(WORKLOAD_ID,)),
    # By name, a workload of a kind they may not read is as absent: "no workload named …".
    "slash command by name": Entry(ask_slash, CATEGORY, typed=(WORKLOAD,), only_private=False),
    "message shortcut": Entry(ask_shortcut, CATEGORY, typed=(WORKLOAD,), only_private=False),
    "direct message": Entry(ask_dm, CATEGORY, typed=(WORKLOAD,), only_private=False),
    "show all evidence button": Entry(evidence_button, "All evidence"),
    "show all evidence typed": Entry(evidence_typed, "All evidence"),
    "re-run button": Entry(rerun_button, CATEGORY),
    "another lookback": Entry(lookback_typed, CATEGORY),
    "post it to the thread": Entry(publish_button, CATEGORY),
}


@pytest.fixture
async def row_bot(
    fake_slack: FakeSlack, redis_url, redis_client
) -> AsyncIterator[tuple[Bot, Simulator]]:
    for user, email in [
        ("UD", Access.DENIED_BY_KIND.value),
        ("UA", Access.DENIED_BY_PROJECT.value),
        (ERIN_USER, ERIN),
    ]:
        fake_slack.users[user] = {"profile": {"display_name": email, "email": email}}
    simulator = Simulator(people_scenario())
    async with running_bots(
        fake_slack,
        redis_url,
        simulator=simulator,
        channel_projects={MAPPED: ["ml-team"]},
        authz_cache_ttl_s=0,  # erin's access changes mid-row
    ) as [bot]:
        yield bot, simulator


def _said(calls: list[Call]) -> str:
    return "\n".join(json.dumps(c.body, ensure_ascii=False) for c in calls)


async def _reaction(row: Row, start: int) -> list[Call]:
    """The messages after `start`, up to a private one or one that ends a turn.

    Then whatever the bot still sends before it answers a later help request.
    """

    def shown() -> list[Call]:
        return [
            c for c in row.calls()[start:] if c.method in PUBLIC | PRIVATE and c.key != "settle"
        ]

    def ended(calls: list[Call]) -> bool:
        return any(c.method in PRIVATE or any(end in _said([c]) for end in ENDS) for c in calls)

    async with asyncio.timeout(10):
        while not ended(shown()):  # noqa: ASYNC110 - the fake has no event to wait on
            await asyncio.sleep(0.02)
    await settle(row.bot)
    return shown()


@pytest.mark.parametrize("access", ACCESS, ids=[a.name.lower() for a in ACCESS])
@pytest.mark.parametrize("entry", ENTRIES.values(), ids=ENTRIES.keys())
async def test_every_entry_point_checks_cluster_project_and_kind(
    row_bot: tuple[Bot, Simulator], entry: Entry, access: Access
):
    bot, simulator = row_bot
    row = Row(bot, simulator, access)
    start = await entry.act(row)
    shown = await _reaction(row, start)
    if access is Access.ALLOWED:
        assert entry.shows in _said(shown), shown
        return
    secrets = [*TOLD, WORKLOAD, WORKLOAD_ID]
    leaked = [s for s in secrets if s not in entry.typed and s in _said(shown)]
    assert leaked == [], shown
    if entry.only_private:
        [told] = shown
        assert told.method in PRIVATE
        assert "You don't have read access" in told.text


async def test_no_cluster_is_named_to_someone_who_reads_nothing(row_bot):
    """Asked without a cluster, the access decision comes before the "Which cluster?" list."""
    bot, simulator = row_bot
    bot.slack.users["UM"] = {"profile": {"display_name": "m", "email": "mallory@acme.ai"}}
    row = Row(bot, simulator, Access.DENIED_BY_PROJECT)
    await _mention(row, f"why did {WORKLOAD} in nlp fail?", user="UM", channel=OPEN, thread=None)
    [told] = await _reaction(row, 0)  # the one message: nothing in the channel
    assert (told.method, told.body["user"]) == ("chat.postEphemeral", "UM")
    assert told.text == NOWHERE
    assert [c for c in bot.slack.calls() if c.method in PUBLIC] == []
