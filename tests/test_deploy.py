"""The deploy files: the Slack manifest asks for exactly what the bot uses, nothing more."""

from __future__ import annotations

from pathlib import Path

import yaml

DEPLOY = Path(__file__).resolve().parent.parent / "deploy"


def test_slack_manifest_is_minimal_and_points_every_surface_at_one_url():
    manifest = yaml.safe_load((DEPLOY / "slack-app-manifest.yaml").read_text())
    scopes = set(manifest["oauth_config"]["scopes"]["bot"])
    assert scopes == {
        "commands",
        "app_mentions:read",
        "chat:write",
        "files:write",
        "channels:history",
        "groups:history",
        "im:history",
        "users:read",
        "users:read.email",
    }
    [command] = manifest["features"]["slash_commands"]
    assert command["command"] == "/runai-why"
    settings = manifest["settings"]
    assert set(settings["event_subscriptions"]["bot_events"]) == {
        "app_mention",
        "message.channels",
        "message.groups",
        "message.im",
    }
    urls = {
        command["url"],
        settings["event_subscriptions"]["request_url"],
        settings["interactivity"]["request_url"],
    }
    assert len(urls) == 1
    assert urls.pop().endswith("/slack/events")
    assert settings["interactivity"]["is_enabled"] is True
    assert settings["socket_mode_enabled"] is False


def test_procfile_runs_the_http_server_and_a_worker():
    procfile = (DEPLOY.parent / "Procfile").read_text().strip().splitlines()
    assert procfile == ["web: runai-why serve --host 0.0.0.0", "worker: runai-why worker"]
