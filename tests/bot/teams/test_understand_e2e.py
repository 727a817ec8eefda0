"""What people paste and type, understood end to end over real HTTP (Teams).

A Run:ai link pasted in a Teams mention (the HTML link Teams' composer makes of it), and
Teams help that never offers a slash command Teams does not have.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.bot.teams.harness import CHANNEL, DEMO, TeamsBot, mention, running_teams

pytestmark = pytest.mark.e2e

CLUSTER = DEMO.clusters[0]["uuid"]
WORKLOAD = next(w.workload["id"] for w in DEMO.workloads if w.workload["name"] == "eval-harness")


@pytest.fixture
async def bot(redis_url: str, redis_client) -> AsyncIterator[TeamsBot]:
    async with running_teams(redis_url) as [bot]:
        yield bot


async def test_a_run_ai_link_in_a_mention_is_all_the_bot_needs(bot: TeamsBot):
    link = f"https://acme.run.ai/workloads?clusterId={CLUSTER}&amp;workloadId={WORKLOAD}"
    ask = mention(bot, f'why did <a href="{link}">this one</a> fail?&nbsp;<at>Bob</at> fyi')
    root = ask["id"]
    assert (await bot.send(ask)).status_code == 200
    [working] = await bot.teams.wait_for("send")
    assert working.conversation == f"{CHANNEL};messageid={root}"
    assert working.texts[0].startswith(f"Diagnosing {WORKLOAD} on prod-a")
    [answer] = await bot.teams.wait_for("update")
    first = answer.card["body"][0]
    assert first["text"] == "CRASH_APP_ERROR"


async def test_teams_help_never_tells_people_to_type_a_slash_command(bot: TeamsBot):
    await bot.send(mention(bot, "help", kind="personal"))
    [helped] = await bot.teams.wait_for("send")
    shown = " ".join(helped.texts)
    assert "@runai-why" in shown
    assert "/runai-why" not in shown
