"""The Teams settings: their names, defaults, and what `serve` refuses to start without."""

from __future__ import annotations

import pytest
from pydantic import SecretStr

from bot.app.runtime import build_runtime
from bot.config import ConfigError, Settings


def test_the_environment_names_and_defaults(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("TEAMS_APP_ID", "app-1")
    monkeypatch.setenv("TEAMS_APP_PASSWORD", "secret-1")
    monkeypatch.setenv("TEAMS_TENANT_ID", "tenant-1")
    settings = Settings(_env_file=None)
    assert settings.teams.configured
    assert settings.teams.openid_metadata_url == (
        "https://login.botframework.com/v1/.well-known/openidconfiguration"
    )
    assert settings.teams.token_issuer == "https://api.botframework.com"
    assert settings.teams.secrets() == (
        "app-1",
        "secret-1",
        "tenant-1",
        "https://login.microsoftonline.com/tenant-1/oauth2/v2.0/token",
    )
    assert "secret-1" not in repr(settings)
    monkeypatch.setenv("TEAMS_LOGIN_URL", "http://127.0.0.1:1/token")
    assert Settings(_env_file=None).teams.secrets()[3] == "http://127.0.0.1:1/token"


def test_every_missing_teams_setting_is_named():
    settings = Settings(_env_file=None, teams_app_id="app-1", teams_tenant_id="change-me")
    with pytest.raises(ConfigError, match="set TEAMS_APP_PASSWORD, TEAMS_TENANT_ID"):
        settings.teams.secrets()


def test_slack_or_teams_is_configured():
    assert not Settings(_env_file=None).teams.configured
    assert not Settings(_env_file=None).slack.configured
    assert Settings(_env_file=None, slack_signing_secret=SecretStr("s")).slack.configured
    assert Settings(_env_file=None, teams_app_password=SecretStr("p")).teams.configured
    assert not Settings(_env_file=None, teams_app_id="change-me").teams.configured


def test_teams_only_still_needs_run_ai():
    with pytest.raises(ConfigError, match="RUNAI_URL"):
        build_runtime(
            Settings(
                _env_file=None,
                teams_app_id="00000000-0000-0000-0000-0000000000a1",
                teams_app_password=SecretStr("p4ssw0rd-value"),
                teams_tenant_id="tenant-1",
            )
        )


def test_nothing_configured_offers_either_platform():
    with pytest.raises(ConfigError) as raised:
        build_runtime(Settings(_env_file=None))
    assert str(raised.value) == (
        "configure Slack (SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET), Microsoft Teams "
        "(TEAMS_APP_ID, TEAMS_APP_PASSWORD, TEAMS_TENANT_ID) or both; "
        "set RUNAI_URL, RUNAI_CLIENT_ID, RUNAI_CLIENT_SECRET (missing or a placeholder) "
        "before `runai-why serve`; see deploy/env.example and deploy/slack-app-manifest.yaml "
        "and README.md, Install in Teams"
    )


@pytest.mark.parametrize(
    ("teams", "named"),
    [
        pytest.param({"teams_app_id": "app-1"}, "TEAMS_APP_PASSWORD, TEAMS_TENANT_ID", id="id"),
        pytest.param(
            {"teams_app_password": SecretStr("p4ss")},
            "TEAMS_APP_ID, TEAMS_TENANT_ID",
            id="password only: the app ID was forgotten",
        ),
        pytest.param(
            {"teams_app_id": "change-me", "teams_tenant_id": "tenant-1"},
            "TEAMS_APP_ID, TEAMS_APP_PASSWORD",
            id="a placeholder app ID",
        ),
    ],
)
def test_a_teams_install_is_told_what_teams_lacks_and_nothing_of_slack(teams, named):
    with pytest.raises(ConfigError) as raised:
        build_runtime(Settings(_env_file=None, **teams))
    message = str(raised.value)
    assert message.startswith(f"set {named}, RUNAI_URL, RUNAI_CLIENT_ID, RUNAI_CLIENT_SECRET ")
    assert message.endswith("see deploy/env.example and README.md, Install in Teams")
    assert "SLACK" not in message
    assert "slack" not in message


def test_both_platforms_half_configured_are_named_in_one_line():
    settings = Settings(
        _env_file=None,
        slack_bot_token=SecretStr("xoxb-1-2"),
        teams_app_id="app-1",
        runai_url="https://acme.run.ai",
        runai_client_id="runai-why",
        runai_client_secret=SecretStr("s3cret"),
    )
    with pytest.raises(ConfigError) as raised:
        settings.serve_secrets(socket_mode=False, runai=True)
    assert str(raised.value) == (
        "set SLACK_SIGNING_SECRET, TEAMS_APP_PASSWORD, TEAMS_TENANT_ID (missing or a placeholder) "
        "before `runai-why serve`; see deploy/env.example and deploy/slack-app-manifest.yaml "
        "and README.md, Install in Teams"
    )
