"""Microsoft Teams: the Azure Bot's identity, the tokens it accepts, where its charts are served."""

from __future__ import annotations

import re
from typing import NamedTuple

import httpx
from pydantic import Field, SecretStr, field_validator

from bot.config.base import Concern, ConfigError, Problem, is_placeholder, plain

__all__ = ["MAX_TOKEN_LIFETIME_S", "TOKEN_LEEWAY_S", "TeamsSecrets", "TeamsSettings"]

_HOST = re.compile(r"^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$")
#: Clock skew tolerated on an inbound token's `exp`/`nbf`/`iat`, as the Bot Framework SDKs do.
TOKEN_LEEWAY_S = 300
#: `TEAMS_MAX_TOKEN_LIFETIME_S` by default: past the 60 to 90 minutes Entra ID tokens live.
MAX_TOKEN_LIFETIME_S = 3 * 3600


class TeamsSecrets(NamedTuple):
    """What the Teams front end needs, checked and stripped."""

    app_id: str
    password: str
    tenant_id: str
    login_url: str


class TeamsSettings(Concern):
    """Microsoft Teams (`TEAMS_*`), served on `POST /api/messages` when a Teams secret is set."""

    app_id: str | None = Field(
        default=None,
        validation_alias="teams_app_id",
        description="`TEAMS_APP_ID`, the Azure Bot's Microsoft App ID (the tokens' audience).",
    )
    app_password: SecretStr | None = Field(
        default=None,
        validation_alias="teams_app_password",
        description="`TEAMS_APP_PASSWORD`, its client secret (for the outbound token).",
    )
    tenant_id: str | None = Field(
        default=None,
        validation_alias="teams_tenant_id",
        description="`TEAMS_TENANT_ID`, the one Entra tenant whose users may ask.",
    )
    openid_metadata_url: str = Field(
        default="https://login.botframework.com/v1/.well-known/openidconfiguration",
        validation_alias="teams_openid_metadata_url",
        description=(
            "`TEAMS_OPENID_METADATA_URL`, whose `jwks_uri` gives the keys that sign inbound tokens."
        ),
    )
    token_issuer: str = Field(
        default="https://api.botframework.com",
        validation_alias="teams_token_issuer",
        description="`TEAMS_TOKEN_ISSUER`, the inbound tokens' `iss`.",
    )
    login_url: str | None = Field(
        default=None,
        validation_alias="teams_login_url",
        description=(
            "`TEAMS_LOGIN_URL`, the OAuth token endpoint for the bot's outbound token; default "
            "the tenant's Microsoft identity platform endpoint."
        ),
    )
    public_url: str | None = Field(
        default=None,
        validation_alias="teams_public_url",
        description=(
            "`TEAMS_PUBLIC_URL`, the bot's public HTTPS base URL (the host of the messaging "
            "endpoint); Teams fetches answer charts from under it. Without it, Teams answers "
            "show the memory sparkline instead of the chart."
        ),
    )
    max_token_lifetime_s: int = Field(
        default=MAX_TOKEN_LIFETIME_S,
        ge=600,
        le=86400,
        validation_alias="teams_max_token_lifetime_s",
        description=(
            "`TEAMS_MAX_TOKEN_LIFETIME_S`, the longest an inbound token may still have to live "
            "(its `exp` from now); one living longer is refused. An activity is remembered "
            "(a replay of it is a duplicate) for this long plus the 300 s clock leeway, so "
            "for as long as its token is accepted. Bot Framework tokens live about an hour."
        ),
    )
    chart_ttl_s: int = Field(
        default=7 * 86400,
        ge=300,
        le=30 * 86400,
        validation_alias="teams_chart_ttl_s",
        description=(
            "`TEAMS_CHART_TTL_S`, how long a chart's signed URL stays valid; the PNG, stored "
            "once, lives as long as the newest URL naming it."
        ),
    )

    @field_validator("public_url")
    @classmethod
    def _public_url(cls, value: str | None) -> str | None:
        """An https base URL (http only on loopback), no query or fragment; no trailing `/`."""
        if value is None or is_placeholder(value):
            return None
        try:
            url = httpx.URL(value.strip())
        except httpx.InvalidURL as error:
            raise ValueError(f"TEAMS_PUBLIC_URL is not a valid URL ({error})") from error
        loopback = url.host in {"localhost", "127.0.0.1", "::1"}
        host_ok = loopback or bool(_HOST.match(url.host))
        if not host_ok or not (url.scheme == "https" or (url.scheme == "http" and loopback)):
            raise ValueError("TEAMS_PUBLIC_URL must look like https://runai-why.example.com")
        if url.query or url.fragment:
            raise ValueError("TEAMS_PUBLIC_URL must have no query or fragment")
        return str(url).rstrip("/")

    @property
    def replay_window_s(self) -> int:
        """How long a taken activity is remembered: as long as a token carrying it is accepted.

        A token is accepted until its `exp` plus the leeway, and its `exp` is at most
        `max_token_lifetime_s` after the first time it is seen; a replay of the activity
        within that time is a duplicate.
        """
        return self.max_token_lifetime_s + TOKEN_LEEWAY_S

    def _required(self) -> dict[str, str]:
        return {
            "TEAMS_APP_ID": plain(self.app_id),
            "TEAMS_APP_PASSWORD": plain(self.app_password),
            "TEAMS_TENANT_ID": plain(self.tenant_id),
        }

    @property
    def configured(self) -> bool:
        """Whether `runai-why serve` should serve Teams (any Teams secret is set)."""
        return not all(is_placeholder(value) for value in self._required().values())

    def problems(self) -> list[Problem]:
        """The Teams secrets that are unset or placeholders."""
        return [Problem(name) for name, value in self._required().items() if is_placeholder(value)]

    def secrets(self) -> TeamsSecrets:
        """App ID, password, tenant ID and token endpoint; `ConfigError` names what is unset."""
        unset = [problem.variable for problem in self.problems()]
        if unset:
            raise ConfigError(
                f"set {', '.join(unset)} (missing or a placeholder) to serve Microsoft Teams; "
                "see README.md, Install in Teams"
            )
        required = self._required()
        tenant = required["TEAMS_TENANT_ID"]
        login = plain(self.login_url) or (
            f"https://login.microsoftonline.com/{tenant}/oauth2/v2.0/token"
        )
        return TeamsSecrets(required["TEAMS_APP_ID"], required["TEAMS_APP_PASSWORD"], tenant, login)
