"""Who may remove a watch, and a watch whose subscriber's access changed: listed, made again."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.authz import Identity
from bot.push import Target
from bot.watch.subscriptions import STOPPED, Subscription
from tests.bot.push.chat import Chat

PROD_A = "2b7c3d1e-9f4a-4c58-a1d6-5e8f0b3c7d92"
CONSOLE = Target(platform="console", team="local", channel="console")
EARLIER = datetime.now(UTC) - timedelta(days=1)


def _revoke(chat: Chat, email: str) -> None:
    assert chat.sim is not None
    rules = chat.sim.scenario.access_rules
    assert rules is not None
    rules[:] = [r for r in rules if r.get("subjectId") != email]


async def _keep(chat: Chat, **changes: object) -> Subscription:
    fields = {
        "target": CONSOLE,
        "cluster_id": PROD_A,
        "cluster_name": "prod-a",
        "project": "ml-team",
        "subscribed_by": "bob@acme.ai",
        "since": EARLIER,
    }
    subscription = Subscription.model_validate(fields | changes)
    assert await chat.subscriptions.add(subscription) == "added"
    return subscription


@pytest.mark.parametrize(
    ("who", "text"),
    [
        ("alice@acme.ai", "unwatch nlp on prod-a"),  # may not read nlp at all
        ("nobody@acme.ai", f"unwatch nlp on {PROD_A}"),  # may read nothing anywhere
        ("bob@acme.ai", "unwatch nlp on prod-a"),  # the subscriber, whose access is gone
    ],
    ids=["a member who may not read it", "a member who may read nothing", "its subscriber"],
)
async def test_anyone_in_the_channel_may_remove_a_watch_in_public(chat: Chat, who: str, text: str):
    """Removing shows nobody anything: no access is needed, the subscriber's lost one included."""
    await chat.say("watch nlp on prod-a")
    _revoke(chat, "bob@acme.ai")
    assert await chat.say(text, as_email=who) == (
        f"runai-why> {who} unsubscribed this channel from project nlp on prod-a.\n"
    )
    assert await chat.subscriptions.stored() == []


def _guest(**flags: object) -> Identity:
    fields: dict[str, object] = {
        "platform": "console",
        "team_id": "local",
        "user_id": "U9",
        "email": "guest@partner.example",
    }
    return Identity(**(fields | flags))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("identity", "allow_guests", "says"),
    [
        (_guest(is_guest=True), False, "(only you) Guest accounts can't see Run:ai workloads"),
        (_guest(is_external=True), False, "(only you) runai-why answers only members of"),
        (_guest(lookup_failed="users.info"), False, "(only you) I could not tell who you are"),
        (_guest(is_guest=True), True, "guest@partner.example unsubscribed this channel"),
    ],
    ids=["a guest", "another organisation", "not known who", "a guest, guests allowed"],
)
async def test_guests_and_other_organisations_may_not_remove_one_unless_let_in(
    chat: Chat,
    identity: Identity,
    allow_guests: bool,  # noqa: FBT001 - a table column
    says: str,
):
    await chat.say("watch nlp on prod-a")
    said = await chat.say("unwatch nlp on prod-a", identity=identity, allow_guests=allow_guests)
    assert said.startswith(f"runai-why> {says}")
    assert len(await chat.subscriptions.stored()) == (0 if allow_guests else 1)


@pytest.mark.parametrize("cluster", ["prod-a", PROD_A])
async def test_a_watch_is_removed_by_its_cluster_name_or_id(chat: Chat, cluster: str):
    await chat.say("watch ml-team on prod-a")
    said = await chat.say(f"unwatch ml-team on {cluster}", as_email="nobody@acme.ai")
    assert (
        said
        == "runai-why> nobody@acme.ai unsubscribed this channel from project ml-team on prod-a.\n"
    )
    assert "`WATCHES` setting" in await chat.say(
        "unwatch vision on prod-a", as_email="nobody@acme.ai"
    )


@pytest.mark.parametrize(
    ("changes", "listed", "since"),
    [
        (
            {"stopped_at": EARLIER + timedelta(hours=1), "told": STOPPED},
            ": stopped {at}",
            "fresh",
        ),
        (
            {"told": "kinds:inferences,trainings", "notices": 1},
            ": only inferences and trainings",
            "kept",
        ),
    ],
    ids=["stopped", "narrowed"],
)
async def test_a_watch_its_subscriber_cannot_fully_read_is_listed_so_and_may_be_made_again(
    chat: Chat, changes: dict[str, object], listed: str, since: str
):
    kept = await _keep(chat, **changes)
    at = (kept.stopped_at or kept.since).strftime("%Y-%m-%d %H:%M UTC")
    [line] = [x for x in (await chat.say("watches")).splitlines() if "ml-team" in x]
    assert line.endswith(listed.format(at=at)), "what the watch covers, never why"
    said = await chat.say("watch ml-team on prod-a", as_email="alice@acme.ai")
    assert said.startswith("runai-why> alice@acme.ai subscribed this channel to failures of")
    [now] = await chat.subscriptions.stored()
    assert (now.subscribed_by, now.stopped_at, now.told) == ("alice@acme.ai", None, "")
    # A stopped one starts afresh (nothing from while it stood is posted); a narrowed one
    # goes on from where it is, its notices still counted (each posted once).
    assert (now.since == kept.since) is (since == "kept")
    assert now.notices == (kept.notices if since == "kept" else 0)
    assert "already watches" in await chat.say("watch ml-team on prod-a")
