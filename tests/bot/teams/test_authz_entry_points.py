"""Every Teams entry point x {allowed, denied by kind, denied by project}, end to end.

The Slack table's rows (`tests/bot/slack/test_authz_entry_points.py`) on Teams: the real bot
over HTTP with signed Bot Framework tokens, the fake connector, the simulator serving the
demo's access model plus two people (`tests/bot/authz/people.py`) and a real Redis. A
thread's answer comes from bob asking by ID in the channel; where the channel is mapped
(`CHANNEL_PROJECTS` allows only ml-team there) that answer went to bob's 1:1 chat.

Allowed, the person sees what they asked for. Denied, nothing of the workload reaches
anyone through their action: not its category, phase or evidence, nor its name or ID unless
they typed it; and a thread's answer is neither shown again nor replaced.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass

import pytest

from bot.conversation import PUBLISH, RERUN, SHOW_EVIDENCE, report_action
from runai_sim.scenario import Scenario
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
from tests.bot.teams.fake_teams import TENANT, Call, FakeTeams
from tests.bot.teams.harness import CHANNEL, TeamsBot, _activity, click, mention, running_teams

pytestmark = pytest.mark.e2e

ASKER, ERIN_USER = "29:u1", "29:ue"
#: Who acts in each row: 29:u2 is another reader of everything (not the thread's asker).
USER = {Access.ALLOWED: "29:u2", Access.DENIED_BY_KIND: "29:ud", Access.DENIED_BY_PROJECT: "29:ua"}
PERSONAL = "a:personal"


@dataclass
class Row:
    """One table row: the bot, the scenario it serves, and who acts with which access."""

    bot: TeamsBot
    scenario: Scenario
    access: Access
    mapped: bool

    @property
    def user(self) -> str:
        return USER[self.access]

    def calls(self) -> list[Call]:
        return [c for c in self.bot.teams.calls if c.kind in {"send", "update"}]


def _private(call: Call) -> bool:
    return call.conversation.startswith(PERSONAL)


async def _answered(row: Row, *, user: str = ASKER) -> tuple[str, list[Call]]:
    """`user` asks by ID in the channel: (the thread's root, the answer's activities).

    In a mapped channel they are the answer and the offer to post it, in the 1:1 chat.
    """
    ask = mention(row.bot, BY_ID, user=user)
    assert (await row.bot.send(ask)).status_code == 200
    ends = (CATEGORY, PUBLISH) if row.mapped else (CATEGORY,)

    def answered() -> list[Call]:
        return [c for c in row.calls() if any(end in _said([c]) for end in ends)]

    async with asyncio.timeout(15):
        while len(answered()) < len(ends):  # noqa: ASYNC110 - the fake has no event to wait on
            await asyncio.sleep(0.02)
    return ask["id"], answered()


def _button(call: Call, value: str) -> dict:
    """The card's button of the action `value` (which carries the answer it is on)."""
    return next(b for b in call.buttons if report_action(b["data"]["value"])[0] == value)


# ---------------------------------------------------------------- the entry points


async def ask_channel(row: Row) -> int:
    start = len(row.calls())
    assert (await row.bot.send(mention(row.bot, BY_ID, user=row.user))).status_code == 200
    return start


async def ask_chat(row: Row) -> int:
    start = len(row.calls())
    chat = mention(row.bot, BY_NAME, user=row.user, kind="personal")
    assert (await row.bot.send(chat)).status_code == 200
    return start


async def _press(row: Row, value: str) -> int:
    root, [answer] = await _answered(row)
    start = len(row.calls())
    button = _button(answer, value)  # the answer card carries it
    sent = button["data"]["value"]
    pressed = click(row.bot, sent, card=answer.activity_id, thread=root, user=row.user)
    assert (await row.bot.send(pressed)).status_code == 200
    return start


async def evidence_card_action(row: Row) -> int:
    return await _press(row, SHOW_EVIDENCE)


async def rerun_card_action(row: Row) -> int:
    return await _press(row, RERUN)


async def _typed(row: Row, text: str) -> int:
    root, _ = await _answered(row)
    start = len(row.calls())
    typed = mention(row.bot, text, user=row.user, thread=root)
    assert (await row.bot.send(typed)).status_code == 200
    return start


async def evidence_typed(row: Row) -> int:
    return await _typed(row, "show all evidence")


async def lookback_typed(row: Row) -> int:
    return await _typed(row, "what about the last 7 days?")


async def publish_card_action(row: Row) -> int:
    """Erin is answered privately, then her access changes, then she posts it.

    The click is delivered in the thread, where the engine finds the thread's state; from
    the 1:1 chat, where Teams shows the offer, see the two tests at the end.
    """
    root, [_, offer] = await _answered(row, user=ERIN_USER)
    limit(row.scenario, row.access)
    start = len(row.calls())
    pressed = click(row.bot, PUBLISH, card=offer.activity_id, thread=root, user=ERIN_USER)
    assert (await row.bot.send(pressed)).status_code == 200
    return start


@dataclass(frozen=True)
class Entry:
    act: Callable[[Row], Awaitable[int]]
    shows: str
    """What the allowed person is shown."""
    mapped: bool = False
    """The channel discusses only ml-team publicly (`CHANNEL_PROJECTS`)."""
    typed: tuple[str, ...] = ()
    """What of the workload the person typed themselves (it may be said back)."""
    only_private: bool = True
    """Denied, nothing at all is posted in the channel (not even a question)."""


ENTRIES = {
    "channel mention by id": Entry(ask_channel, CATEGORY, typed=(WORKLOAD_ID,)),
    "1:1 chat by name": Entry(ask_chat, CATEGORY, typed=(WORKLOAD,), only_private=False),
    "show all evidence card action": Entry(evidence_card_action, "All evidence"),
    "show all evidence typed": Entry(evidence_typed, "All evidence", mapped=True),
    "re-run card action": Entry(rerun_card_action, CATEGORY),
    "another lookback": Entry(lookback_typed, CATEGORY, mapped=True),
    "post it to the thread": Entry(publish_card_action, CATEGORY, mapped=True),
}


@pytest.fixture
async def teams() -> FakeTeams:
    fake = FakeTeams()
    for user, email in [
        ("29:ud", Access.DENIED_BY_KIND.value),
        ("29:ua", Access.DENIED_BY_PROJECT.value),
        (ERIN_USER, ERIN),
    ]:
        fake.members[user] = {"email": email, "userPrincipalName": email, "tenantId": TENANT}
    return fake


@asynccontextmanager
async def _row(
    teams: FakeTeams, redis_url: str, entry: Entry, access: Access
) -> AsyncIterator[Row]:
    scenario = people_scenario()
    async with running_teams(
        redis_url,
        scenario=scenario,
        teams=teams,
        channel_projects={CHANNEL: ["ml-team"]} if entry.mapped else {},
        authz_cache_ttl_s=0,  # erin's access changes mid-row
    ) as [bot]:
        yield Row(bot, scenario, access, entry.mapped)


def _said(calls: list[Call]) -> str:
    return "\n".join(json.dumps(c.body, ensure_ascii=False) for c in calls)


async def _reaction(row: Row, start: int) -> list[Call]:
    """The activities after `start`, up to a private one or one that ends a turn.

    Then whatever the bot still sends before it answers a later help request.
    """

    def ended(calls: list[Call]) -> bool:
        return any(_private(c) or any(end in _said([c]) for end in ENDS) for c in calls)

    async with asyncio.timeout(15):
        while not ended(row.calls()[start:]):  # noqa: ASYNC110 - the fake has no event
            await asyncio.sleep(0.02)
    before = len(row.calls())
    await row.bot.send(mention(row.bot, "help", user="29:u3", kind="personal"))
    async with asyncio.timeout(15):
        while "I explain why" not in _said(row.calls()[before:]):  # noqa: ASYNC110
            await asyncio.sleep(0.02)
    return [c for c in row.calls()[start:] if "I explain why" not in _said([c])]


@pytest.mark.parametrize("access", ACCESS, ids=[a.name.lower() for a in ACCESS])
@pytest.mark.parametrize("entry", ENTRIES.values(), ids=ENTRIES.keys())
async def test_every_entry_point_checks_cluster_project_and_kind(
    teams: FakeTeams, redis_url, redis_client, entry: Entry, access: Access
):
    async with _row(teams, redis_url, entry, access) as row:
        start = await entry.act(row)
        shown = await _reaction(row, start)
    if access is Access.ALLOWED:
        assert entry.shows in _said(shown), shown
        return
    secrets = [*TOLD, WORKLOAD, WORKLOAD_ID]
    leaked = [s for s in secrets if s not in entry.typed and s in _said(shown)]
    assert leaked == [], shown
    if entry.only_private:
        assert [c for c in shown if not _private(c)] == []
        [told] = shown
        assert "You don't have read access" in _said([told])


async def test_no_cluster_is_named_to_someone_who_reads_nothing(
    teams: FakeTeams, redis_url, redis_client
):
    """Asked without a cluster, the access decision comes before the "Which cluster?" list."""
    mallory = "mallory@acme.ai"
    teams.members["29:um"] = {"email": mallory, "userPrincipalName": mallory, "tenantId": TENANT}
    entry = ENTRIES["channel mention by id"]
    async with _row(teams, redis_url, entry, Access.DENIED_BY_PROJECT) as row:
        ask = mention(row.bot, f"why did {WORKLOAD} in nlp fail?", user="29:um")
        assert (await row.bot.send(ask)).status_code == 200
        [told] = await _reaction(row, 0)  # the one activity: nothing in the channel
    assert told.conversation == "a:personal-29:um"
    assert NOWHERE in _said([told])
    assert "prod-a" not in _said([told])


@pytest.mark.parametrize("clicker", [ERIN_USER, USER[Access.ALLOWED]], ids=["erin", "another"])
async def test_post_it_to_the_thread_from_the_private_chat(
    teams: FakeTeams, redis_url, redis_client, clicker: str
):
    """The offer sits in Erin's 1:1 chat: her click there posts in the thread it is about.

    The same card's data sent by someone else (from their own chat) finds no thread: the
    record of where a private card came from holds the person it was shown to.
    """
    entry = ENTRIES["post it to the thread"]
    async with _row(teams, redis_url, entry, Access.ALLOWED) as row:
        root, [_, offer] = await _answered(row, user=ERIN_USER)
        start = len(row.calls())
        pressed = _activity(
            user=clicker,
            conversation=offer.conversation,
            kind="personal",
            service_url=row.bot.service_url,
            replyToId=offer.activity_id,
            value=_button(offer, PUBLISH)["data"],
        )
        assert (await row.bot.send(pressed)).status_code == 200
        shown = await _reaction(row, start)
    published = [c.conversation for c in shown if CATEGORY in _said([c])]
    assert published == ([f"{CHANNEL};messageid={root}"] if clicker == ERIN_USER else [])
