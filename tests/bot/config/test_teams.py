"""Teams settings: the public URL charts are served under, and the secrets, checked."""

from __future__ import annotations

import pytest
from pydantic import SecretStr, ValidationError

from bot.config import ConfigError, TeamsSettings

#: (TEAMS_PUBLIC_URL as set, what the settings keep, or the error it names)
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
def test_the_public_url_is_https_without_query(value: str, kept: str | None, error: str | None):
    if error is None:
        assert TeamsSettings(teams_public_url=value).public_url == kept
    else:
        with pytest.raises(ValidationError, match=error):
            TeamsSettings(teams_public_url=value)


def test_the_chart_ttl_is_bounded():
    assert TeamsSettings().chart_ttl_s == 7 * 86400
    with pytest.raises(ValidationError, match="greater than or equal to 300"):
        TeamsSettings(teams_chart_ttl_s=10)


def test_the_secrets_are_stripped_and_the_login_url_defaults_to_the_tenant():
    teams = TeamsSettings(
        teams_app_id=" app-1 ", teams_app_password=SecretStr("p\n"), teams_tenant_id="t-1"
    )
    assert teams.secrets() == (
        "app-1",
        "p",
        "t-1",
        "https://login.microsoftonline.com/t-1/oauth2/v2.0/token",
    )
    assert teams.secrets().login_url.startswith("https://login.microsoftonline.com/")


def test_every_unset_secret_is_named_and_never_a_value():
    teams = TeamsSettings(teams_app_password=SecretStr("your-password"))
    assert teams.configured is False  # a placeholder alone configures nothing
    with pytest.raises(ConfigError) as raised:
        teams.secrets()
    assert str(raised.value) == (
        "set TEAMS_APP_ID, TEAMS_APP_PASSWORD, TEAMS_TENANT_ID (missing or a placeholder) to "
        "serve Microsoft Teams; see README.md, Install in Teams"
    )
