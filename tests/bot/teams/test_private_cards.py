"""Where a private card came from: recorded by the bot, used only for its own person's click."""

from __future__ import annotations

import dataclasses

import pytest

from bot.teams.activity import Inbound
from bot.teams.private_cards import (
    MemoryPrivateCards,
    Origin,
    RedisPrivateCards,
    continued,
)

CHAT = "a:personal-erin"
ORIGIN = Origin(
    service_url="https://smba.example/teams/",
    conversation_id="19:room@thread.tacv2;messageid=1700000000000",
    channel="19:room@thread.tacv2",
    thread="1700000000000",
    conversation_type="channel",
    user_id="29:erin",
)
CLICK = Inbound(
    activity_id="1700000000009",
    service_url="https://smba.example/teams/",
    conversation_id=CHAT,
    channel=CHAT,
    thread="chat",
    conversation_type="personal",
    tenant_id="tenant-acme",
    user_id="29:erin",
    aad_object_id=None,
    bot_id="28:bot",
    text="",
    directed=True,
    choice="report:publish",
    card_id="card-1",
)


@pytest.mark.parametrize(
    ("inbound", "origin", "moved"),
    [
        pytest.param(CLICK, ORIGIN, True, id="her click on her card"),
        pytest.param(CLICK, None, False, id="a card the bot has no record of"),
        pytest.param(dataclasses.replace(CLICK, user_id="29:mallory"), ORIGIN, False, id="another person"),
        pytest.param(dataclasses.replace(CLICK, card_id=None), ORIGIN, False, id="not a click on a card"),
        pytest.param(
            dataclasses.replace(CLICK, conversation_type="channel"), ORIGIN, False, id="not in a 1:1 chat"
        ),
    ],
)  # fmt: skip
def test_only_the_person_shown_the_card_continues_its_thread(inbound, origin, moved):
    out = continued(inbound, origin)
    if not moved:
        assert out is inbound
        return
    assert (out.conversation_id, out.channel, out.thread, out.conversation_type) == (
        ORIGIN.conversation_id,
        ORIGIN.channel,
        ORIGIN.thread,
        "channel",
    )
    assert (out.user_id, out.choice, out.activity_id, out.card_id) == (
        "29:erin",
        "report:publish",
        CLICK.activity_id,
        None,
    )


async def test_in_memory_origins_expire_and_are_capped():
    now = [0.0]
    cards = MemoryPrivateCards(ttl_s=60, max_cards=2, clock=lambda: now[0])
    for card in ("c1", "c2", "c3"):
        await cards.remember(CHAT, card, ORIGIN)
    assert await cards.origin_of(CHAT, "c1") is None  # the oldest went first
    assert await cards.origin_of(CHAT, "c3") == ORIGIN
    assert await cards.origin_of("a:personal-other", "c3") is None
    now[0] = 60.0
    assert await cards.origin_of(CHAT, "c3") is None


async def test_origins_in_redis_expire_with_the_thread(redis_client):
    cards = RedisPrivateCards(redis_client, ttl_s=600)
    await cards.remember(CHAT, "card-1", ORIGIN)
    assert await cards.origin_of(CHAT, "card-1") == ORIGIN
    assert await cards.origin_of(CHAT, "card-2") is None
    [key] = await redis_client.keys("*private-card*")
    assert 590 <= await redis_client.ttl(key) <= 600


async def test_a_record_that_does_not_parse_is_no_record(redis_client):
    cards = RedisPrivateCards(redis_client, ttl_s=600)
    await cards.remember(CHAT, "card-1", ORIGIN)
    [key] = await redis_client.keys("*private-card*")
    await redis_client.set(key, '{"service_url": 7}')
    assert await cards.origin_of(CHAT, "card-1") is None
