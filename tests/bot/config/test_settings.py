"""Start-up settings: placeholders are refused, and every problem is named at once."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import SecretStr

from bot.config.settings import ConfigError, Settings, is_placeholder


@pytest.mark.parametrize(
    ("value", "placeholder"),
    [
        ("", True),
        ("   ", True),
        ("change-me", True),
        ("CHANGEME", True),
        ("xoxb-change-me", True),
        ("xapp-change-me", True),
        ("https://change-me.run.ai", True),
        ("replace-me", True),
        ("your-signing-secret", True),
        ("<secret>", True),
        ("todo", True),
        ("xoxb-", True),
        ("xoxb-1234-5678-abcdef", False),
        ("8f14e45fceea167a5a36dedd4bea2543", False),
        ("https://acme.run.ai", False),
        ("runai-why", False),
    ],
)
def test_is_placeholder(value: str, placeholder: bool):  # noqa: FBT001 - a table column
    assert is_placeholder(value) is placeholder


def _settings(**values: str) -> Settings:
    secrets = {"slack_bot_token", "slack_signing_secret", "slack_app_token", "runai_client_secret"}
    fields: dict[str, Any] = {k: SecretStr(v) if k in secrets else v for k, v in values.items()}
    return Settings(_env_file=None, **fields)


GOOD = {
    "slack_bot_token": "xoxb-1-2-abc",
    "slack_signing_secret": "8f14e45fceea167a5a36dedd4bea2543",
    "slack_app_token": "xapp-1-A1-abc",
    "runai_url": "https://acme.run.ai",
    "runai_client_id": "runai-why",
    "runai_client_secret": "s3cret",
}


def test_good_settings_give_the_secrets():
    secrets = _settings(**GOOD).serve_secrets(socket_mode=True, runai=True)
    assert secrets == ("xoxb-1-2-abc", GOOD["slack_signing_secret"], "xapp-1-A1-abc")


def test_every_problem_in_one_error(monkeypatch):
    for name in ("SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_APP_TOKEN", "RUNAI_URL"):
        monkeypatch.delenv(name, raising=False)
    bad = {**GOOD, "slack_bot_token": "xoxb-change-me", "slack_app_token": "xoxb-wrong-kind"}
    bad |= {"runai_url": "runai.example", "runai_client_secret": "change-me"}
    with pytest.raises(ConfigError) as raised:
        _settings(**bad).serve_secrets(socket_mode=True, runai=True)
    message = str(raised.value)
    assert message.startswith("set SLACK_BOT_TOKEN, RUNAI_CLIENT_SECRET (missing or a placeholder)")
    assert "SLACK_APP_TOKEN must be an app-level token" in message
    assert "RUNAI_URL must look like https://acme.run.ai" in message
    assert "change-me" not in message.split("(", 1)[1]  # names, never values


def test_without_socket_mode_the_app_token_is_not_needed():
    good = {k: v for k, v in GOOD.items() if k != "slack_app_token"}
    secrets = _settings(**good).serve_secrets(socket_mode=False, runai=True)
    assert secrets is not None
    assert secrets[2] is None


def test_the_diagnosis_deadline_is_configurable_and_bounded(monkeypatch: pytest.MonkeyPatch):
    assert Settings(_env_file=None).diagnosis_deadline_s == 30
    monkeypatch.setenv("DIAGNOSIS_DEADLINE_S", "12.5")
    assert Settings(_env_file=None).diagnosis_deadline_s == 12.5
    monkeypatch.setenv("DIAGNOSIS_DEADLINE_S", "0")
    with pytest.raises(ValueError, match="diagnosis_deadline_s"):
        Settings(_env_file=None)


@pytest.mark.parametrize(
    ("variable", "value", "field", "expected"),
    [
        ("DIAGNOSIS_CACHE_TTL_S", None, "diagnosis_cache_ttl_s", 30.0),
        ("DIAGNOSIS_CACHE_TTL_S", "0", "diagnosis_cache_ttl_s", 0.0),
        ("DIAGNOSIS_CACHE_TTL_S", "-1", "diagnosis_cache_ttl_s", ValueError),
        ("RUNAI_MAX_CONCURRENT_CALLS", None, "runai_max_concurrent_calls", 64),
        ("RUNAI_MAX_CONCURRENT_CALLS", "0", "runai_max_concurrent_calls", 0),
        ("RUNAI_MAX_CONCURRENT_CALLS", "-2", "runai_max_concurrent_calls", ValueError),
    ],
)
def test_the_storm_settings(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str | None, field: str, expected: Any
):
    if value is not None:
        monkeypatch.setenv(variable, value)
    if expected is ValueError:
        with pytest.raises(ValueError, match=field):
            Settings(_env_file=None)
        return
    assert getattr(Settings(_env_file=None), field) == expected


#: (TEAMS_PUBLIC_URL as set, what Settings keeps, or the error it names)
PUBLIC_URLS = [
    ("https://runai-why.acme.com/", "https://runai-why.acme.com", None),
    ("https://runai-why.acme.com/bot", "https://runai-why.acme.com/bot", None),
    ("http://127.0.0.1:3000", "http://127.0.0.1:3000", None),  # tests, on loopback only
    ("https://change-me.example.com", None, None),  # the env.example placeholder: unset
    ("http://runai-why.acme.com", None, "must look like https://"),
    ("runai-why.acme.com", None, "must look like https://"),
    ("https://runai-why.acme.com/?x=1", None, "no query or fragment"),
    ("https://exa mple.com", None, "must look like https://"),
    ("https://a:b:c", None, "not a valid URL"),
]


@pytest.mark.parametrize(("value", "kept", "error"), PUBLIC_URLS)
def test_the_teams_public_url_is_https_without_query(
    value: str, kept: str | None, error: str | None
):
    if error is None:
        assert Settings(teams_public_url=value).teams_public_url == kept
    else:
        with pytest.raises(ValueError, match=error):
            Settings(teams_public_url=value)


def test_the_chart_ttl_is_bounded():
    assert Settings().teams_chart_ttl_s == 7 * 86400
    with pytest.raises(ValueError, match="greater than or equal to 300"):
        Settings(teams_chart_ttl_s=10)


@pytest.mark.parametrize(
    ("variable", "value", "field", "expected"),
    [
        ("QUEUE_MAX_ITEMS", "250", "queue_max_items", 250),
        ("QUEUE_DEADLINE_S", "90", "queue_deadline_s", 90.0),
        ("QUEUE_CLAIM_IDLE_S", "5", "queue_claim_idle_s", 5.0),
        ("QUEUE_MAX_DELIVERIES", "5", "queue_max_deliveries", 5),
        ("SHUTDOWN_GRACE_S", "0", "shutdown_grace_s", 0.0),
        ("EMBEDDED_WORKER", "false", "embedded_worker", False),
    ],
)
def test_the_queue_settings_are_read_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, variable, value, field, expected
):
    monkeypatch.setenv(variable, value)
    assert getattr(Settings(_env_file=None), field) == expected


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("QUEUE_MAX_ITEMS", "0"),
        ("QUEUE_DEADLINE_S", "3600"),  # not shorter than the dedupe memory (an hour)
        ("QUEUE_CLAIM_IDLE_S", "0"),
        ("QUEUE_MAX_DELIVERIES", "0"),
        ("SHUTDOWN_GRACE_S", "-1"),
    ],
)
def test_queue_settings_out_of_range_are_refused_by_name(
    monkeypatch: pytest.MonkeyPatch, variable, value
):
    monkeypatch.setenv(variable, value)
    with pytest.raises(ValueError, match=variable.lower()):
        Settings(_env_file=None)


def test_the_queue_defaults():
    settings = Settings(_env_file=None)
    assert (
        settings.queue_max_items,
        settings.queue_deadline_s,
        settings.queue_claim_idle_s,
        settings.queue_max_deliveries,
        settings.shutdown_grace_s,
        settings.embedded_worker,
    ) == (1000, 300.0, 30.0, 3, 20.0, True)
