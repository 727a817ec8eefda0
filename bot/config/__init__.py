"""Configuration: the one `Settings`, read from the environment once, one model per concern."""

from bot.config.authz import AuthzSettings
from bot.config.base import DEDUPE_TTL_S, ConfigError, Problem, is_placeholder
from bot.config.conversation import ConversationSettings
from bot.config.diagnosis import (
    EMBEDDED_MAX_CONCURRENT_DIAGNOSES,
    WORKER_MAX_CONCURRENT_DIAGNOSES,
    DiagnosisSettings,
)
from bot.config.http import HttpSettings
from bot.config.kube import KubeSettings
from bot.config.log import LogSettings
from bot.config.metrics import MetricsSettings
from bot.config.push import PushSettings
from bot.config.queue import QueueSettings
from bot.config.redis import DEFAULT_MAX_CONNECTIONS, DEFAULT_POOL_TIMEOUT_S, RedisSettings
from bot.config.runai import RunaiSettings
from bot.config.settings import Settings, invalid_settings
from bot.config.slack import SlackSecrets, SlackSettings
from bot.config.teams import (
    MAX_TOKEN_LIFETIME_S,
    TOKEN_LEEWAY_S,
    TeamsSecrets,
    TeamsSettings,
)

__all__ = [
    "DEDUPE_TTL_S",
    "DEFAULT_MAX_CONNECTIONS",
    "DEFAULT_POOL_TIMEOUT_S",
    "EMBEDDED_MAX_CONCURRENT_DIAGNOSES",
    "MAX_TOKEN_LIFETIME_S",
    "TOKEN_LEEWAY_S",
    "WORKER_MAX_CONCURRENT_DIAGNOSES",
    "AuthzSettings",
    "ConfigError",
    "ConversationSettings",
    "DiagnosisSettings",
    "HttpSettings",
    "KubeSettings",
    "LogSettings",
    "MetricsSettings",
    "Problem",
    "PushSettings",
    "QueueSettings",
    "RedisSettings",
    "RunaiSettings",
    "Settings",
    "SlackSecrets",
    "SlackSettings",
    "TeamsSecrets",
    "TeamsSettings",
    "invalid_settings",
    "is_placeholder",
]
