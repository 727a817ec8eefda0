"""Alertmanager end to end: one report per alert across two replicas, its repeats none."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pydantic import SecretStr

from tests.bot.push.alerts import TOKEN, alert, webhook
from tests.bot.slack.fake_slack import Call, FakeSlack
from tests.bot.slack.harness import first_line, running_bots

pytestmark = pytest.mark.e2e

CHANNEL = "C9"
SETTINGS: dict[str, Any] = {
    "alertmanager_token": SecretStr(TOKEN),
    "alert_cluster": "prod-a",
    "alert_channels": {"prod-a/ml-team": CHANNEL},
}
AUTH = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}


def _in_channel(call: Call) -> bool:
    return call.body.get("channel") == CHANNEL


async def test_an_alert_for_a_run_ai_pod_is_answered_once_and_its_repeat_not_at_all(
    fake_slack: FakeSlack, redis_url: str, redis_client
):
    async with running_bots(fake_slack, redis_url, replicas=2, **SETTINGS) as [one, two]:
        url = f"{one.url}/alerts/alertmanager"
        first = await one.http.post(url, content=webhook(alert()), headers=AUTH)
        assert first.json() == {
            "queued": 1,
            "duplicates": 0,
            "unmapped": 0,
            "merged": 0,
            "excess": 0,
        }
        [report] = await fake_slack.wait_for_async(
            "chat.postMessage", where=_in_channel, timeout=30
        )
        assert first_line(report).startswith("OOM_KILLED · training-job-42")
        assert "Alertmanager alert" in str(report.body)

        # Alertmanager's repeat, to the other replica: deduplicated, nothing posted.
        again = await two.http.post(
            f"{two.url}/alerts/alertmanager", content=webhook(alert()), headers=AUTH
        )
        assert again.json() == {
            "queued": 0,
            "duplicates": 1,
            "unmapped": 0,
            "merged": 0,
            "excess": 0,
        }

        resolved = webhook(alert(status="resolved"), status="resolved")
        assert (await one.http.post(url, content=resolved, headers=AUTH)).json()["queued"] == 1
        [_, note] = await fake_slack.wait_for_async(
            "chat.postMessage", count=2, where=_in_channel, timeout=30
        )
        assert note.body.get("thread_ts") == report.response["ts"]
        assert (note.text or "").startswith("Resolved: Alertmanager says KubePodCrashLooping")

        await asyncio.sleep(1)
        assert len([c for c in fake_slack.calls("chat.postMessage") if _in_channel(c)]) == 2


async def test_the_token_is_checked_before_the_body_and_without_one_there_is_no_route(
    fake_slack: FakeSlack, redis_url: str, redis_client
):
    async with running_bots(fake_slack, redis_url, **SETTINGS) as [bot]:
        url = f"{bot.url}/alerts/alertmanager"
        bad = {"Authorization": "Bearer wrong", "Content-Type": "application/json"}
        refused = await bot.http.post(url, content=b"{not even json", headers=bad)
        assert (refused.status_code, refused.headers["www-authenticate"]) == (401, "Bearer")
        malformed = await bot.http.post(url, content=b"{not even json", headers=AUTH)
        assert malformed.status_code == 400
        old = await bot.http.post(url, content=b'{"version": "3", "alerts": []}', headers=AUTH)
        assert old.status_code == 400
    async with running_bots(fake_slack, redis_url) as [plain]:
        absent = await plain.http.post(
            f"{plain.url}/alerts/alertmanager", content=webhook(alert()), headers=AUTH
        )
        assert absent.status_code == 404
    assert fake_slack.calls("chat.postMessage") == []
