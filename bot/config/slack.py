"""Slack: the bot's tokens, the signing secret that proves a request came from Slack, its API."""

from __future__ import annotations

from typing import NamedTuple

from pydantic import Field, SecretStr, field_validator

from bot.config.base import Concern, Problem, is_placeholder, plain

__all__ = ["SlackSecrets", "SlackSettings"]


class SlackSecrets(NamedTuple):
    """What `runai-why serve` needs to serve Slack, checked and stripped."""

    bot_token: str
    signing_secret: str
    app_token: str | None
    """Only in Socket Mode."""


class SlackSettings(Concern):
    """Slack (`SLACK_*`); Slack is served when either secret is set."""

    bot_token: SecretStr | None = Field(
        default=None,
        validation_alias="slack_bot_token",
        description="`SLACK_BOT_TOKEN`, the bot token (`xoxb-…`).",
    )
    signing_secret: SecretStr | None = Field(
        default=None,
        validation_alias="slack_signing_secret",
        description="`SLACK_SIGNING_SECRET`, to verify that requests come from Slack.",
    )
    app_token: SecretStr | None = Field(
        default=None,
        validation_alias="slack_app_token",
        description="`SLACK_APP_TOKEN`, the app-level token (`xapp-…`), only for Socket Mode.",
    )
    api_url: str = Field(
        default="https://slack.com/api/",
        validation_alias="slack_api_url",
        description="`SLACK_API_URL`, the Web API base URL (tests point it at a fake).",
    )

    @field_validator("api_url")
    @classmethod
    def _trailing_slash(cls, value: str) -> str:
        """slack_sdk joins method names onto the base URL, which must end with `/`."""
        return value if value.endswith("/") else value + "/"

    @property
    def configured(self) -> bool:
        """Whether Slack is configured at all (either Slack secret set), for `serve`."""
        return not (
            is_placeholder(plain(self.bot_token)) and is_placeholder(plain(self.signing_secret))
        )

    def secrets(self, *, socket_mode: bool) -> SlackSecrets:
        """The bot token, signing secret and (Socket Mode) app token, as set."""
        app = plain(self.app_token) if socket_mode else ""
        return SlackSecrets(plain(self.bot_token), plain(self.signing_secret), app or None)

    def problems(self, *, socket_mode: bool) -> list[Problem]:
        """Slack settings that are unset, placeholders or of the wrong kind."""
        token, secret, app = self.secrets(socket_mode=socket_mode)
        values = {"SLACK_BOT_TOKEN": token, "SLACK_SIGNING_SECRET": secret}
        if socket_mode:
            values["SLACK_APP_TOKEN"] = app or ""
        unset = [Problem(name) for name, value in values.items() if is_placeholder(value)]
        named = {problem.variable for problem in unset}
        malformed = []
        if "SLACK_BOT_TOKEN" not in named and not token.startswith("xoxb-"):
            malformed.append(
                Problem("SLACK_BOT_TOKEN", "SLACK_BOT_TOKEN must be a bot token (xoxb-…)")
            )
        if socket_mode and "SLACK_APP_TOKEN" not in named and not (app or "").startswith("xapp-"):
            kind = "SLACK_APP_TOKEN must be an app-level token (xapp-…)"
            malformed.append(Problem("SLACK_APP_TOKEN", kind))
        return unset + malformed
