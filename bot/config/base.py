"""What every concern of the settings shares: the error, placeholders and the model base."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, SecretStr

from bot.errors import BotError

__all__ = [
    "DEDUPE_TTL_S",
    "Concern",
    "ConfigError",
    "Problem",
    "is_placeholder",
    "placeholder_token",
    "plain",
]

#: Slack retries an event for up to ~6 minutes; what was taken is remembered for an hour, so
#: a request's deadline in the queue must be shorter.
DEDUPE_TTL_S = 3600

_PLACEHOLDERS = frozenset({"", "xxx", "todo", "<secret>", "none", "null"})
#: Words that make any value a placeholder, wherever they appear (`xoxb-change-me`,
#: `https://change-me.run.ai`), as deploy/env.example writes them.
_PLACEHOLDER_WORDS = ("changeme", "change-me", "change_me", "replace-me", "replaceme", "your-")
_TOKEN_PREFIXES = ("xoxb-", "xapp-")


def is_placeholder(value: str) -> bool:
    """Whether `value` is unset or a placeholder rather than a real setting."""
    text = value.strip().lower()
    for prefix in _TOKEN_PREFIXES:
        text = text.removeprefix(prefix)
    return text in _PLACEHOLDERS or any(word in text for word in _PLACEHOLDER_WORDS)


def plain(value: SecretStr | str | None) -> str:
    """A setting's text without surrounding blanks; "" when it is unset."""
    if isinstance(value, SecretStr):
        value = value.get_secret_value()
    return (value or "").strip()


def placeholder_token(variable: str, value: SecretStr | None) -> list[Problem]:
    """An optional token set to a placeholder (`change-me`): a problem, not a password.

    Unset (or empty), it is simply off; a placeholder must not open anything to whoever has
    read deploy/env.example.
    """
    text = plain(value)
    if not text or not is_placeholder(text):
        return []
    return [Problem(variable, f"{variable} is a placeholder: set a real token, or unset it")]


class ConfigError(BotError):
    """The configuration is missing or unusable; the message says which variable to set."""


@dataclass(frozen=True)
class Problem:
    """One thing a command lacks: the variable to set and, if it is set but unusable, why.

    `malformed` is None when the variable is unset or a placeholder; otherwise a sentence
    naming the variable (never its value, unless the value is not a secret).
    """

    variable: str
    malformed: str | None = None


class Concern(BaseModel):
    """The base of one concern's settings, read from flat environment variable names.

    Each field's `validation_alias` is its environment variable's name in lower case
    (`SLACK_BOT_TOKEN` → `slack_bot_token`), so `Settings` reads it from the environment,
    `.env` or a keyword argument of that name; in Python it is reached by its short field
    name (`settings.slack.bot_token`).
    """

    model_config = ConfigDict(validate_by_alias=True, validate_by_name=True, extra="ignore")
