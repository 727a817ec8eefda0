"""`Settings`: every variable lands in its concern, from the environment, `.env` or a keyword."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr, ValidationError

from bot.config import ConfigError, Settings, invalid_settings

#: (variable, value as set, where it lands, the value there): one row per variable.
LANDS = [
    ("RUNAI_URL", "https://acme.run.ai", "runai.url", "https://acme.run.ai"),
    ("RUNAI_CLIENT_ID", "runai-why", "runai.client_id", "runai-why"),
    ("RUNAI_CLIENT_SECRET", "s3cret", "runai.client_secret", SecretStr("s3cret")),
    ("RUNAI_TIMEOUT_S", "5", "runai.timeout_s", 5.0),
    ("RUNAI_RETRIES", "1", "runai.retries", 1),
    ("RUNAI_MAX_CONCURRENT_CALLS", "0", "runai.max_concurrent_calls", 0),
    ("KUBE_CLUSTERS", '{"x": {}}', "kube.clusters", '{"x": {}}'),
    ("KUBERNETES_SERVICE_HOST", "10.0.0.1", "kube.service_host", "10.0.0.1"),
    ("KUBERNETES_SERVICE_PORT", "6443", "kube.service_port", "6443"),
    ("SLACK_BOT_TOKEN", "xoxb-1", "slack.bot_token", SecretStr("xoxb-1")),
    ("SLACK_SIGNING_SECRET", "abc", "slack.signing_secret", SecretStr("abc")),
    ("SLACK_APP_TOKEN", "xapp-1", "slack.app_token", SecretStr("xapp-1")),
    ("SLACK_API_URL", "http://127.0.0.1:1/api", "slack.api_url", "http://127.0.0.1:1/api/"),
    ("TEAMS_APP_ID", "app-1", "teams.app_id", "app-1"),
    ("TEAMS_APP_PASSWORD", "p", "teams.app_password", SecretStr("p")),
    ("TEAMS_TENANT_ID", "t-1", "teams.tenant_id", "t-1"),
    ("TEAMS_OPENID_METADATA_URL", "http://o", "teams.openid_metadata_url", "http://o"),
    ("TEAMS_TOKEN_ISSUER", "http://i", "teams.token_issuer", "http://i"),
    ("TEAMS_LOGIN_URL", "http://l", "teams.login_url", "http://l"),
    ("TEAMS_PUBLIC_URL", "https://bot.acme.com/", "teams.public_url", "https://bot.acme.com"),
    ("TEAMS_CHART_TTL_S", "600", "teams.chart_ttl_s", 600),
    ("TEAMS_MAX_TOKEN_LIFETIME_S", "5400", "teams.max_token_lifetime_s", 5400),
    ("REDIS_URL", "redis://127.0.0.1:1/0", "redis.url", SecretStr("redis://127.0.0.1:1/0")),
    ("REDIS_MAX_CONNECTIONS", "8", "redis.max_connections", 8),
    ("REDIS_POOL_TIMEOUT_S", "2.5", "redis.pool_timeout_s", 2.5),
    ("PORT", "8080", "http.port", 8080),
    ("HTTP_HEADER_TIMEOUT_S", "3", "http.header_timeout_s", 3.0),
    ("HTTP_BODY_TIMEOUT_S", "4", "http.body_timeout_s", 4.0),
    ("HTTP_MAX_CONNECTIONS", "9", "http.max_connections", 9),
    ("LOG_LEVEL", "DEBUG", "log.level", "DEBUG"),
    ("LOG_FORMAT", "console", "log.format", "console"),
    ("METRICS_PORT", "0", "metrics.port", 0),
    ("METRICS_TOKEN", "m", "metrics.token", SecretStr("m")),
    ("STATE_TTL_S", "120", "conversation.state_ttl_s", 120),
    ("CHANNEL_DEFAULT_CLUSTERS", '{"C1": "a"}', "conversation.default_clusters", {"C1": "a"}),
    ("MAX_CONCURRENT_DIAGNOSES", "2", "diagnosis.max_concurrent", 2),
    ("DIAGNOSIS_DEADLINE_S", "12.5", "diagnosis.deadline_s", 12.5),
    ("DIAGNOSIS_CACHE_TTL_S", "0", "diagnosis.cache_ttl_s", 0.0),
    ("AUTHZ_MODE", "off", "authz.mode", "off"),
    ("AUTHZ_CACHE_TTL_S", "5", "authz.cache_ttl_s", 5),
    ("AUTHZ_ALLOW_GUESTS", "true", "authz.allow_guests", True),
    ("AUTHZ_ALLOW_EXTERNAL", "1", "authz.allow_external", True),
    ("CHANNEL_PROJECTS", '{"C1": ["nlp"]}', "authz.channel_projects", {"C1": ["nlp"]}),
    ("QUEUE_MAX_ITEMS", "250", "queue.max_items", 250),
    ("QUEUE_MAX_PUSH_ITEMS", "40", "queue.max_push_items", 40),
    ("QUEUE_MAX_PER_ASKER", "3", "queue.max_per_asker", 3),
    ("QUEUE_DEADLINE_S", "90", "queue.deadline_s", 90.0),
    ("QUEUE_CLAIM_IDLE_S", "5", "queue.claim_idle_s", 5.0),
    ("QUEUE_MAX_DELIVERIES", "5", "queue.max_deliveries", 5),
    ("SHUTDOWN_GRACE_S", "0", "queue.shutdown_grace_s", 0.0),
    ("EMBEDDED_WORKER", "false", "queue.embedded_worker", False),
    ("ALERTMANAGER_TOKEN", "a", "push.alertmanager_token", SecretStr("a")),
    ("ALERT_CLUSTER", "prod", "push.alert_cluster", "prod"),
    ("ALERT_CHANNELS", '{"prod/nlp": "C1"}', "push.alert_channels", {"prod/nlp": "C1"}),
    ("ALERT_MAX_PER_GROUP", "5", "push.alert_max_per_group", 5),
    ("WATCHES", '[{"channel": "C1"}]', "push.watches", [{"channel": "C1"}]),
    ("WATCH_INTERVAL_S", "30", "push.watch_interval_s", 30.0),
    ("WATCH_STORM_THRESHOLD", "7", "push.watch_storm_threshold", 7),
    ("PUSH_GROUP_WINDOW_S", "600", "push.group_window_s", 600.0),
    ("PUSH_MAX_POSTS_PER_H", "3", "push.max_posts_per_h", 3),
]


def _at(settings: Settings, where: str) -> Any:
    concern, field = where.split(".")
    return getattr(getattr(settings, concern), field)


def test_the_table_names_every_variable_once():
    assert sorted(row[0] for row in LANDS) == sorted(Settings.variables())


@pytest.mark.parametrize(("variable", "value", "where", "expected"), LANDS)
def test_each_variable_lands_in_its_concern(  # noqa: PLR0917 - the table's columns
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, variable, value, where, expected
):
    default = _at(Settings(_env_file=None), where)
    assert default != expected  # the row shows a change
    monkeypatch.setenv(variable, value)
    assert _at(Settings(_env_file=None), where) == expected
    monkeypatch.delenv(variable)
    dotenv = tmp_path / ".env"
    dotenv.write_text(f"{variable}='{value}'\n", encoding="utf-8")
    assert _at(Settings(_env_file=dotenv), where) == expected
    keyword = {variable.lower(): expected}  # a Python value: no JSON to decode
    assert _at(Settings(_env_file=None, **keyword), where) == expected


def test_a_keyword_wins_over_the_environment_which_wins_over_dotenv(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    dotenv = tmp_path / ".env"
    dotenv.write_text("PORT=1001\nMETRICS_PORT=1002\nSTATE_TTL_S=600\n", encoding="utf-8")
    monkeypatch.setenv("PORT", "2001")
    monkeypatch.setenv("METRICS_PORT", "2002")
    settings = Settings(_env_file=dotenv, port=3001)
    assert (settings.http.port, settings.metrics.port) == (3001, 2002)
    assert settings.conversation.state_ttl_s == 600


def test_a_cwd_dotenv_is_read_by_default(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    (tmp_path / ".env").write_text("LOG_FORMAT=console\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert Settings().log.format == "console"


def test_an_empty_variable_is_unset(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("PORT", "")
    assert Settings(_env_file=None).http.port == 3000


def test_a_concern_given_whole_takes_flat_values_over_it():
    base = Settings(_env_file=None, port=4000, http_max_connections=7)
    settings = Settings(_env_file=None, http=base.http, port=5000)
    assert (settings.http.port, settings.http.max_connections) == (5000, 7)


def test_the_defaults():
    settings = Settings(_env_file=None)
    assert (
        settings.queue.max_items,
        settings.queue.deadline_s,
        settings.queue.claim_idle_s,
        settings.queue.max_deliveries,
        settings.queue.shutdown_grace_s,
        settings.queue.embedded_worker,
    ) == (1000, 300.0, 30.0, 3, 20.0, True)
    assert (
        settings.diagnosis.deadline_s,
        settings.diagnosis.cache_ttl_s,
        settings.diagnosis.max_concurrent,
    ) == (30, 30.0, None)
    assert settings.runai.max_concurrent_calls == 64
    assert settings.teams.chart_ttl_s == 7 * 86400


def test_every_field_has_a_description_naming_its_variable():
    for variable, field in Settings.variables().items():
        assert f"`{variable}`" in (field.description or ""), variable


#: (variable, a value out of range, what the error says)
OUT_OF_RANGE = [
    ("QUEUE_MAX_ITEMS", "0", "greater than or equal to 1"),
    ("QUEUE_MAX_PUSH_ITEMS", "0", "greater than or equal to 1"),
    ("QUEUE_MAX_PER_ASKER", "0", "greater than or equal to 1"),
    ("ALERT_MAX_PER_GROUP", "0", "greater than or equal to 1"),
    ("QUEUE_DEADLINE_S", "3600", "less than 3600"),  # shorter than the dedupe memory (an hour)
    ("QUEUE_CLAIM_IDLE_S", "0", "greater than 0"),
    ("QUEUE_MAX_DELIVERIES", "0", "greater than or equal to 1"),
    ("SHUTDOWN_GRACE_S", "-1", "greater than or equal to 0"),
    ("DIAGNOSIS_DEADLINE_S", "0", "greater than 0"),
    ("DIAGNOSIS_CACHE_TTL_S", "-1", "greater than or equal to 0"),
    ("RUNAI_MAX_CONCURRENT_CALLS", "-2", "greater than or equal to 0"),
    ("TEAMS_CHART_TTL_S", "10", "greater than or equal to 300"),
    ("AUTHZ_MODE", "sometimes", "'runai' or 'off'"),
    ("PORT", "eighty", "valid integer"),
]


@pytest.mark.parametrize(("variable", "value", "says"), OUT_OF_RANGE)
def test_a_value_out_of_range_is_refused_by_its_variable(
    monkeypatch: pytest.MonkeyPatch, variable, value, says
):
    monkeypatch.setenv(variable, value)
    with pytest.raises(ValidationError, match=variable.lower()) as raised:
        Settings(_env_file=None)
    message = invalid_settings(raised.value)
    assert message.startswith(f"invalid settings: {variable} (")
    assert says in message


def test_every_value_out_of_range_is_named_at_once(monkeypatch: pytest.MonkeyPatch):
    for variable, value, _ in OUT_OF_RANGE:
        monkeypatch.setenv(variable, value)
    with pytest.raises(ValidationError) as raised:
        Settings(_env_file=None)
    message = invalid_settings(raised.value)
    assert [p.split(" (")[0] for p in message.removeprefix("invalid settings: ").split("; ")] == [
        variable for variable, _, _ in sorted(OUT_OF_RANGE, key=lambda row: _order(row[0]))
    ]
    assert "eighty" not in message
    assert "sometimes" not in message


@pytest.mark.parametrize(
    "variable", ["WATCHES", "CHANNEL_PROJECTS", "ALERT_CHANNELS", "CHANNEL_DEFAULT_CLUSTERS"]
)
def test_json_that_does_not_parse_is_named_by_its_variable(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, variable: str
):
    monkeypatch.setenv(variable, '{"s3cret-value":')
    with pytest.raises(ConfigError, match=rf"^{variable} is not valid JSON: .*line 1 column"):
        Settings(_env_file=None)
    monkeypatch.delenv(variable)
    dotenv = tmp_path / ".env"
    dotenv.write_text(f"{variable}=[1\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=rf"^{variable} \(in .env\) is not valid JSON") as raised:
        Settings(_env_file=dotenv)
    assert "s3cret" not in str(raised.value)


def _order(variable: str) -> int:
    """Pydantic reports the concerns in their order, and each concern's fields in theirs."""
    return list(Settings.variables()).index(variable)


def _settings(**values: Any) -> Settings:
    return Settings(_env_file=None, **values)


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


def test_every_problem_in_one_error():
    bad = {**GOOD, "slack_bot_token": "xoxb-change-me", "slack_app_token": "xoxb-wrong-kind"}
    bad |= {"runai_url": "runai.example", "runai_client_secret": "change-me"}
    with pytest.raises(ConfigError) as raised:
        _settings(**bad).check(serve=True, socket_mode=True)
    message = str(raised.value)
    assert message.startswith("set SLACK_BOT_TOKEN, RUNAI_CLIENT_SECRET (missing or a placeholder)")
    assert "SLACK_APP_TOKEN must be an app-level token" in message
    assert "RUNAI_URL must look like https://acme.run.ai" in message
    assert "change-me" not in message.split("(", 1)[1]  # names, never values


def test_slack_teams_and_run_ai_problems_are_listed_together():
    bad = {"slack_bot_token": "xoxp-user", "teams_app_id": "app-1", "runai_client_id": "x"}
    with pytest.raises(ConfigError) as raised:
        _settings(**bad).check(serve=True)
    assert str(raised.value) == (
        "set SLACK_SIGNING_SECRET, TEAMS_APP_PASSWORD, TEAMS_TENANT_ID, RUNAI_URL, "
        "RUNAI_CLIENT_SECRET (missing or a placeholder); SLACK_BOT_TOKEN must be a bot token "
        "(xoxb-…) before `runai-why serve`; see deploy/env.example and "
        "deploy/slack-app-manifest.yaml and README.md, Install in Teams"
    )


@pytest.mark.parametrize(
    ("tokens", "said"),
    [
        ({}, None),
        ({"metrics_token": "s3cret-scrape", "alertmanager_token": "s3cret-am"}, None),
        ({"metrics_token": "change-me"}, "METRICS_TOKEN is a placeholder"),
        ({"alertmanager_token": "replace-me"}, "ALERTMANAGER_TOKEN is a placeholder"),
    ],
    ids=["unset: off", "real tokens", "METRICS_TOKEN=change-me", "ALERTMANAGER_TOKEN placeholder"],
)
def test_an_optional_token_left_a_placeholder_stops_serve(tokens: dict[str, str], said: str | None):
    """A known token would open /metrics to anyone; an alert route would be off, unsaid."""
    settings = _settings(**GOOD, **tokens)
    if said is None:
        settings.check(serve=True)
        return
    with pytest.raises(ConfigError, match=said):
        settings.check(serve=True)
    settings.check(runai=True)  # `diagnose` serves neither


def test_without_serve_only_run_ai_is_checked():
    settings = _settings(runai_url="ftp://acme", runai_client_id="runai-why")
    with pytest.raises(ConfigError) as raised:
        settings.check(runai=True)
    assert str(raised.value) == (
        "set RUNAI_CLIENT_SECRET to reach a Run:ai control plane; "
        "RUNAI_URL must look like https://acme.run.ai (got 'ftp://acme')"
    )
    settings.check(runai=False)  # nothing else is needed


@pytest.mark.parametrize(
    ("url", "refused"),
    [
        ("https://acme.run.ai", False),
        ("https://acme.run.ai/", False),
        ("http://127.0.0.1:8611", False),
        ("https://runai.example.com/tenant-a", False),  # a control plane under a path
        ("https://acme.run.ai/api/v1", True),
        ("http://127.0.0.1:8611/api/v1/", True),
        ("https://runai.example.com/tenant-a/api", True),
    ],
)
def test_a_run_ai_url_naming_the_api_path_is_refused(url: str, refused: bool):  # noqa: FBT001
    """The client adds /api/v1 itself: with it in RUNAI_URL every call went to /api/v1/api/v1."""
    settings = _settings(runai_url=url, runai_client_id="runai-why", runai_client_secret="s3cret")
    if not refused:
        settings.check(runai=True)
        return
    with pytest.raises(ConfigError, match=r"RUNAI_URL is the control plane's address, without"):
        settings.check(runai=True)


def test_without_socket_mode_the_app_token_is_not_needed():
    good = {k: v for k, v in GOOD.items() if k != "slack_app_token"}
    secrets = _settings(**good).serve_secrets(socket_mode=False, runai=True)
    assert secrets is not None
    assert secrets.app_token is None


CONCURRENCY = {
    "a worker process, unset": ({}, True, 16),
    "serve's embedded worker, unset": ({}, False, 8),
    "a worker process, set": ({"MAX_CONCURRENT_DIAGNOSES": "5"}, True, 5),
    "serve's embedded worker, set": ({"MAX_CONCURRENT_DIAGNOSES": "40"}, False, 40),
}


@pytest.mark.parametrize(("env", "dedicated", "expected"), CONCURRENCY.values(), ids=CONCURRENCY)
def test_diagnoses_at_once_default_by_the_process_role(monkeypatch, env, dedicated, expected):
    monkeypatch.delenv("MAX_CONCURRENT_DIAGNOSES", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    settings = Settings(_env_file=None)
    assert settings.diagnosis.concurrency(dedicated=dedicated) == expected
