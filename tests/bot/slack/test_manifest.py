"""The Slack app manifests (HTTP and Socket Mode) declare exactly what the bot listens to."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.slack.listeners.shortcuts import MESSAGE_SHORTCUT

DEPLOY = Path(__file__).resolve().parents[3] / "deploy"
MANIFESTS = ["slack-app-manifest.yaml", "slack-app-manifest.socket-mode.yaml"]


def _load(name: str) -> dict[str, Any]:
    return yaml.safe_load((DEPLOY / name).read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", MANIFESTS)
def test_every_entry_point_is_declared(name: str):
    manifest = _load(name)
    features, settings = manifest["features"], manifest["settings"]
    [shortcut] = features["shortcuts"]
    assert shortcut == {
        "name": "Why did this fail?",
        "type": "message",
        "callback_id": MESSAGE_SHORTCUT,
        "description": shortcut["description"],
    }
    assert features["app_home"]["messages_tab_enabled"] is True
    assert features["app_home"]["messages_tab_read_only_enabled"] is False
    assert "message.im" in settings["event_subscriptions"]["bot_events"]
    assert "im:history" in manifest["oauth_config"]["scopes"]["bot"]
    # Authorization: users.info for the asker's confirmed e-mail and guest/external flags.
    assert {"users:read", "users:read.email"} <= set(manifest["oauth_config"]["scopes"]["bot"])
    assert settings["interactivity"]["is_enabled"] is True


def test_the_socket_mode_variant_differs_only_in_transport():
    http, socket = _load(MANIFESTS[0]), _load(MANIFESTS[1])
    assert socket["settings"]["socket_mode_enabled"] is True
    assert http["settings"]["socket_mode_enabled"] is False
    assert "example.com" not in (DEPLOY / MANIFESTS[1]).read_text(encoding="utf-8")
    for manifest in (http, socket):  # drop what only HTTP mode has, then compare the rest
        manifest["settings"].pop("socket_mode_enabled")
        manifest["settings"]["event_subscriptions"].pop("request_url", None)
        manifest["settings"]["interactivity"].pop("request_url", None)
        for command in manifest["features"]["slash_commands"]:
            command.pop("url", None)
    assert http == socket
