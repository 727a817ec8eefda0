"""`/privacy` and `/terms`, which the Teams app manifest links, say what is true of this install."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from bot.app.pages import _span, privacy_page
from bot.app.runtime import build_runtime
from bot.app.server import create_asgi_app
from bot.config import Settings
from tests.bot.slack.fake_slack import FakeSlack
from tests.bot.slack.harness import _settings

MANIFEST = Path(__file__).resolve().parents[3] / "deploy" / "teams" / "manifest.json"


@pytest.mark.parametrize(
    ("seconds", "words"),
    [
        (86400, "1 day"),
        (7 * 86400, "7 days"),
        (3600, "1 hour"),
        (7200, "2 hours"),
        (300, "5 minutes"),
        (60, "1 minute"),
        (30.0, "30 seconds"),
        (90, "90 seconds"),
        (0.5, "0.5 seconds"),
        (1, "1 second"),
    ],
)
def test_a_span_is_said_in_its_largest_whole_unit(seconds: float, words: str):
    assert _span(seconds) == words


async def test_serve_serves_both_pages_with_this_installs_retention(fake_slack: FakeSlack):
    settings = _settings(fake_slack, "http://127.0.0.1:9", None, state_ttl_s=7200)
    runtime = build_runtime(settings)
    transport = httpx.ASGITransport(app=create_asgi_app(runtime))
    try:
        async with httpx.AsyncClient(transport=transport, base_url="http://bot") as http:
            privacy, terms = await http.get("/privacy"), await http.get("/terms")
            posted = await http.post("/privacy")
    finally:
        await runtime.aclose()
    for page in (privacy, terms):
        assert page.status_code == 200
        assert page.headers["content-type"] == "text/html; charset=utf-8"
        assert page.headers["x-content-type-options"] == "nosniff"
        assert "default-src 'none'" in page.headers["content-security-policy"]
    assert posted.status_code == 405
    text = privacy.text
    assert (
        "A thread's conversation (what was asked, a pending question, the last answer): 2 hours"
        in text
    )
    assert "Where: the memory of one process." in text  # no REDIS_URL
    assert "<code>runai-why:audit</code>, which keeps about the newest 10,000 entries" in text
    assert "Never Secrets." in text
    assert "Apache License 2.0" in terms.text


def test_the_privacy_page_says_where_state_lives_and_escapes_nothing_it_should_not():
    with_redis = privacy_page(Settings(_env_file=None, redis_url="redis://r:6379/0"))
    assert "Where: Redis." in with_redis
    assert "redis://r" not in with_redis  # the URL (and its password) is never shown
    assert (
        "Who you are (your e-mail address): 5 minutes. Your access decision: 1 minute."
        in with_redis
    )


def test_the_teams_manifest_links_the_pages_serve_serves():
    developer = json.loads(MANIFEST.read_text(encoding="utf-8"))["developer"]
    base = developer["websiteUrl"]
    assert developer["privacyUrl"] == f"{base}/privacy"
    assert developer["termsOfUseUrl"] == f"{base}/terms"
