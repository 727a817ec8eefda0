"""The one `Settings`: every concern's settings, read once from the environment (or `.env`).

Nothing else reads the environment: the entry point builds `Settings` once and passes it (or
its parts) down. Each concern is a model of its own (`settings.slack.bot_token`), read from
the variable names users set (`SLACK_BOT_TOKEN`); see `bot.config.sources`. Secrets are
`SecretStr`, so they never appear in a repr, a log line or a traceback. A value of the wrong
type or range fails at construction (`invalid_settings` names every one); what a command
needs besides is checked by `Settings.check`, which names every problem at once.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, ValidationError, model_validator
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from bot.config.authz import AuthzSettings
from bot.config.base import ConfigError, Problem
from bot.config.conversation import ConversationSettings
from bot.config.diagnosis import DiagnosisSettings
from bot.config.http import HttpSettings
from bot.config.kube import KubeSettings
from bot.config.log import LogSettings
from bot.config.metrics import MetricsSettings
from bot.config.push import PushSettings
from bot.config.queue import QueueSettings
from bot.config.redis import RedisSettings
from bot.config.runai import RunaiSettings, runai_message
from bot.config.slack import SlackSecrets, SlackSettings
from bot.config.sources import FlatNames, concern_fields, route
from bot.config.teams import TeamsSettings

__all__ = ["Settings", "invalid_settings"]


class Settings(BaseSettings):
    """Everything runai-why reads from the environment (or a `.env` file in development)."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore", env_ignore_empty=True)

    runai: RunaiSettings = Field(default_factory=RunaiSettings, description="Run:ai.")
    kube: KubeSettings = Field(default_factory=KubeSettings, description="Tier 2 access.")
    slack: SlackSettings = Field(default_factory=SlackSettings, description="Slack.")
    teams: TeamsSettings = Field(default_factory=TeamsSettings, description="Microsoft Teams.")
    redis: RedisSettings = Field(default_factory=RedisSettings, description="Shared state.")
    http: HttpSettings = Field(default_factory=HttpSettings, description="`serve`'s listener.")
    log: LogSettings = Field(default_factory=LogSettings, description="Logging.")
    metrics: MetricsSettings = Field(default_factory=MetricsSettings, description="/metrics.")
    conversation: ConversationSettings = Field(
        default_factory=ConversationSettings, description="Conversations."
    )
    diagnosis: DiagnosisSettings = Field(
        default_factory=DiagnosisSettings, description="Diagnoses."
    )
    authz: AuthzSettings = Field(default_factory=AuthzSettings, description="Authorization.")
    queue: QueueSettings = Field(default_factory=QueueSettings, description="The work queue.")
    push: PushSettings = Field(default_factory=PushSettings, description="Alerts and watches.")

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,  # noqa: ARG003 - no secrets_dir
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Keyword arguments, then the environment, then `.env`, all by flat variable names."""
        return (
            init_settings,
            FlatNames(settings_cls, env_settings),
            FlatNames(settings_cls, dotenv_settings),
        )

    @model_validator(mode="before")
    @classmethod
    def _route(cls, data: Any) -> Any:
        """Each flat value into its concern (`slack_bot_token` → `slack`)."""
        return route(cls, data) if isinstance(data, dict) else data

    @classmethod
    def variables(cls) -> dict[str, FieldInfo]:
        """Every environment variable read (`SLACK_BOT_TOKEN`) → its field (default, doc)."""
        return {name.upper(): field for _, name, field in concern_fields(cls)}

    def serves_slack(self, *, socket_mode: bool) -> bool:
        """Whether `serve` serves Slack: in Socket Mode, when configured, or with no Teams."""
        return socket_mode or self.slack.configured or not self.teams.configured

    def check(self, *, serve: bool = False, socket_mode: bool = False, runai: bool = True) -> None:
        """Raise one `ConfigError` naming every setting a command lacks; None when usable.

        `serve`: the platforms `runai-why serve` (or `worker`) answers on (both platforms'
        names when neither is configured). `runai`: the Run:ai control plane. Each problem
        names its variable, never a secret's value.
        """
        problems: list[Problem] = []
        if serve and self.serves_slack(socket_mode=socket_mode):
            problems += self.slack.problems(socket_mode=socket_mode)
        if serve and self.teams.configured:
            problems += self.teams.problems()
        if serve:
            problems += [*self.metrics.problems(), *self.push.problems()]
        if runai:
            problems += self.runai.problems()
        if not problems:
            return
        if not serve:
            raise ConfigError(runai_message(problems))
        slack = socket_mode or self.slack.configured
        raise ConfigError(_serve_message(problems, slack=slack, teams=self.teams.configured))

    def serve_secrets(self, *, socket_mode: bool, runai: bool) -> SlackSecrets | None:
        """`check` for `serve`, then Slack's secrets; None when only Teams is served."""
        self.check(serve=True, socket_mode=socket_mode, runai=runai)
        if not self.serves_slack(socket_mode=socket_mode):
            return None
        return self.slack.secrets(socket_mode=socket_mode)


def _serve_message(problems: list[Problem], *, slack: bool, teams: bool) -> str:
    """One line naming every setting `serve` lacks, in the words of the platforms configured.

    With neither platform configured, it offers both (a Teams install is not told that it
    needs Slack); otherwise it names only what the configured ones lack.
    """
    unset = [p.variable for p in problems if p.malformed is None]
    malformed = [p.malformed for p in problems if p.malformed is not None]
    platforms = []
    if not (slack or teams):
        platforms = [
            "configure Slack (SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET), Microsoft Teams "
            "(TEAMS_APP_ID, TEAMS_APP_PASSWORD, TEAMS_TENANT_ID) or both"
        ]
        unset = [name for name in unset if not name.startswith("SLACK_")]
    sentences = [
        *platforms,
        *([f"set {', '.join(unset)} (missing or a placeholder)"] * bool(unset)),
    ]
    guides = ["deploy/slack-app-manifest.yaml"] * (slack or not teams)
    guides += ["README.md, Install in Teams"] * (teams or not slack)
    return (
        f"{'; '.join(sentences + malformed)} before `runai-why serve`; "
        f"see deploy/env.example and {' and '.join(guides)}"
    )


def invalid_settings(error: ValidationError) -> str:
    """Every value of the wrong type or range at once, by its variable, without its value."""
    names = []
    for problem in error.errors():
        where = problem["loc"][1:] or problem["loc"]  # past the concern: the variable
        names.append(".".join(str(p) for p in where).upper() + f" ({problem['msg'].lower()})")
    return "invalid settings: " + "; ".join(names)
