"""The one configuration object, read from the environment once at the entry point.

Nothing else reads the environment: the entry point builds `Settings` and passes the parts
down (`Settings.runai_config()` for the diagnosis engine). Secrets are `SecretStr`, so they
never appear in a repr, a log line or a traceback.
"""

from __future__ import annotations

import re
from typing import Literal

import httpx
from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from bot.errors import BotError
from diagnosis import DEFAULT_DEADLINE_S, RunaiConfig

#: The Redis connection pool's defaults (`bot.durable.connect` uses them too).
DEFAULT_MAX_CONNECTIONS = 64
DEFAULT_POOL_TIMEOUT_S = 10.0

__all__ = ["DEDUPE_TTL_S", "ConfigError", "Settings", "is_placeholder"]

#: Slack retries an event for up to ~6 minutes; what was taken is remembered for an hour, so
#: a request's deadline in the queue must be shorter.
DEDUPE_TTL_S = 3600

_PLACEHOLDERS = frozenset({"", "xxx", "todo", "<secret>", "none", "null"})
#: Words that make any value a placeholder, wherever they appear (`xoxb-change-me`,
#: `https://change-me.run.ai`), as deploy/env.example writes them.
_PLACEHOLDER_WORDS = ("changeme", "change-me", "change_me", "replace-me", "replaceme", "your-")
_TOKEN_PREFIXES = ("xoxb-", "xapp-")
_HOST = re.compile(r"^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$")


def is_placeholder(value: str) -> bool:
    """Whether `value` is unset or a placeholder rather than a real setting."""
    plain = value.strip().lower()
    for prefix in _TOKEN_PREFIXES:
        plain = plain.removeprefix(prefix)
    return plain in _PLACEHOLDERS or any(word in plain for word in _PLACEHOLDER_WORDS)


class ConfigError(BotError):
    """The configuration is missing or unusable; the message says which variable to set."""


class Settings(BaseSettings):
    """Everything runai-why reads from the environment (or a `.env` file in development).

    Attributes:
        runai_url: `RUNAI_URL`, the control-plane base URL (e.g. https://acme.run.ai).
        runai_client_id: `RUNAI_CLIENT_ID`, a service account or access key client ID.
        runai_client_secret: `RUNAI_CLIENT_SECRET`.
        runai_timeout_s: `RUNAI_TIMEOUT_S`, per-request timeout in seconds.
        runai_retries: `RUNAI_RETRIES`, extra attempts on transient failures.
        log_level: `LOG_LEVEL`.
        log_format: `LOG_FORMAT`, `json` for deployments, `console` for people.
        slack_bot_token: `SLACK_BOT_TOKEN` (`xoxb-…`).
        slack_signing_secret: `SLACK_SIGNING_SECRET`, to verify requests come from Slack.
        slack_app_token: `SLACK_APP_TOKEN` (`xapp-…`), only for Socket Mode.
        slack_api_url: `SLACK_API_URL`, the Web API base URL (tests point it at a fake).
        redis_url: `REDIS_URL`; without it state lives in one process's memory. Standalone
            (`redis://`, `rediss://`, `unix://`), Sentinel (`redis+sentinel://h1:26379,
            h2:26379/<master>/<db>`) or Cluster (`redis+cluster://h1:6379,h2:6379`); see
            `bot.durable.connect`.
        redis_max_connections: `REDIS_MAX_CONNECTIONS`, the process's Redis pool size (per
            node on Cluster).
        redis_pool_timeout_s: `REDIS_POOL_TIMEOUT_S`, how long a Redis command waits for a
            free pooled connection before the request is refused as "busy".
        metrics_port: `METRICS_PORT`, a separate port serving only `GET /metrics`, for
            in-cluster scraping (0: none).
        metrics_token: `METRICS_TOKEN`; when set, `GET /metrics` is also served on `PORT`,
            to requests with `Authorization: Bearer <token>`. Without it `PORT` has none.
        port: `PORT`, the HTTP port of `runai-why serve`.
        http_header_timeout_s: `HTTP_HEADER_TIMEOUT_S`, how long `serve` waits for a
            request's head (from the connection, or the previous response) before closing.
        http_body_timeout_s: `HTTP_BODY_TIMEOUT_S`, how long it waits for a request's body
            after its head.
        http_max_connections: `HTTP_MAX_CONNECTIONS`, connections `serve` holds at once;
            past it, a new connection is closed at once (`bot.app.http_limits`).
        channel_default_clusters: `CHANNEL_DEFAULT_CLUSTERS`, JSON `{"C0123": "prod-a"}`:
            a channel's default cluster (name or UUID), stated in every reply that uses it.
        state_ttl_s: `STATE_TTL_S`, how long a thread's conversation is remembered.
        max_concurrent_diagnoses: `MAX_CONCURRENT_DIAGNOSES` per process.
        diagnosis_deadline_s: `DIAGNOSIS_DEADLINE_S`, the time one diagnosis may take; what
            has not answered by then is reported as a gap.
        kube_clusters: `KUBE_CLUSTERS`, JSON mapping a Run:ai cluster UUID to its Kubernetes
            access (`{"<uuid>": {"mode": "in-cluster"}}`, `kubeconfig` + `path` + `context`,
            or `token` + `api_url` + `token_file` [+ `ca_file`]). Clusters not listed get no
            Tier 2 evidence, and their reports say so.
        authz_mode: `AUTHZ_MODE`, `runai` (each asker sees what their Run:ai access allows)
            or `off` (an explicit opt-out, logged at start-up).
        authz_cache_ttl_s: `AUTHZ_CACHE_TTL_S`, how long one person's decision is reused.
        authz_allow_guests: `AUTHZ_ALLOW_GUESTS`, let guest accounts ask (default no).
        authz_allow_external: `AUTHZ_ALLOW_EXTERNAL`, let Slack Connect users ask (default no).
        channel_projects: `CHANNEL_PROJECTS`, JSON `{"C0123": ["nlp", "vision"]}`: the projects
            a channel may discuss publicly; answers about others go to the asker privately.
        diagnosis_cache_ttl_s: `DIAGNOSIS_CACHE_TTL_S`, how long a finished report is reused
            for the same workload in the same state (0: shared only by concurrent askers).
        runai_max_concurrent_calls: `RUNAI_MAX_CONCURRENT_CALLS`, calls to Run:ai in flight at
            once across every replica sharing `REDIS_URL` (0: no global limit).
        teams_app_id: `TEAMS_APP_ID`, the Azure Bot's Microsoft App ID (the tokens' audience).
        teams_app_password: `TEAMS_APP_PASSWORD`, its client secret (outbound token).
        teams_tenant_id: `TEAMS_TENANT_ID`, the one Entra tenant whose users may ask.
        teams_openid_metadata_url: `TEAMS_OPENID_METADATA_URL`, whose `jwks_uri` gives the
            keys that sign inbound tokens.
        teams_token_issuer: `TEAMS_TOKEN_ISSUER`, the inbound tokens' `iss`.
        teams_login_url: `TEAMS_LOGIN_URL`, the OAuth token endpoint for the bot's outbound
            token; default the tenant's Microsoft identity platform endpoint.
        teams_public_url: `TEAMS_PUBLIC_URL`, the bot's public HTTPS base URL (the host of
            the messaging endpoint); Teams fetches answer charts from under it. Without it,
            Teams answers show the memory sparkline instead of the chart.
        teams_chart_ttl_s: `TEAMS_CHART_TTL_S`, how long a chart's signed URL stays valid;
            the PNG, stored once, lives as long as the newest URL naming it.
        queue_max_items: `QUEUE_MAX_ITEMS`, requests the work queue holds (waiting or being
            answered, across replicas); past it, an asker is told at once to ask again.
        queue_deadline_s: `QUEUE_DEADLINE_S`, how long a request may wait to be started;
            past it, it is dropped and its asker told.
        queue_claim_idle_s: `QUEUE_CLAIM_IDLE_S`, how long a worker may go silent before its
            requests are taken over by another (a living worker renews its claim).
        queue_max_deliveries: `QUEUE_MAX_DELIVERIES`, attempts at one request before it goes
            to the dead-letter stream and its asker is told.
        shutdown_grace_s: `SHUTDOWN_GRACE_S`, how long a stopping process (SIGTERM) lets
            the requests it is answering finish before it hands the rest back.
        embedded_worker: `EMBEDDED_WORKER`, whether `runai-why serve` also answers requests
            (default yes; turn it off when `runai-why worker` processes do).
        alertmanager_token: `ALERTMANAGER_TOKEN`, the bearer token Alertmanager sends to
            `POST /alerts/alertmanager`; unset, that route is not served.
        alert_cluster: `ALERT_CLUSTER`, the cluster (name or ID) of alerts without a
            `cluster` label, for a single-cluster install.
        alert_channels: `ALERT_CHANNELS`, JSON `{"<cluster name or ID>/<project>": "<channel
            ID>"}`: where alerts about a project are answered.
        watches: `WATCHES`, JSON list of `{"channel", "project", "cluster"}` (optionally
            `"preemptions": true`): watches declared by the install (GitOps).
        watch_interval_s: `WATCH_INTERVAL_S`, how often watched projects are polled.
        watch_storm_threshold: `WATCH_STORM_THRESHOLD`, more new failures than this in one
            poll of one project are posted as one summary with the answers in its thread.
        push_group_window_s: `PUSH_GROUP_WINDOW_S`, how long the same failure keeps going
            into the same thread.
        push_max_posts_per_h: `PUSH_MAX_POSTS_PER_H`, new pushed messages per channel per
            hour; past it, that hour's answers go into one thread.
    """

    model_config = SettingsConfigDict(env_file=".env", extra="ignore", env_ignore_empty=True)

    runai_url: str | None = None
    runai_client_id: str | None = None
    runai_client_secret: SecretStr | None = None
    runai_timeout_s: float = Field(default=10.0, gt=0, le=120)
    runai_retries: int = Field(default=3, ge=0, le=10)
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    log_format: Literal["json", "console"] = "json"
    slack_bot_token: SecretStr | None = None
    slack_signing_secret: SecretStr | None = None
    slack_app_token: SecretStr | None = None
    slack_api_url: str = "https://slack.com/api/"
    redis_url: SecretStr | None = None
    redis_max_connections: int = Field(default=DEFAULT_MAX_CONNECTIONS, ge=1, le=10_000)
    redis_pool_timeout_s: float = Field(default=DEFAULT_POOL_TIMEOUT_S, gt=0, le=300)
    port: int = Field(default=3000, ge=1, le=65535)
    http_header_timeout_s: float = Field(default=10.0, gt=0, le=300)
    http_body_timeout_s: float = Field(default=20.0, gt=0, le=600)
    http_max_connections: int = Field(default=1024, ge=1, le=100_000)
    metrics_port: int = Field(default=9464, ge=0, le=65535)
    metrics_token: SecretStr | None = None
    channel_default_clusters: dict[str, str] = Field(default_factory=dict)
    state_ttl_s: int = Field(default=86400, ge=60, le=7 * 86400)
    max_concurrent_diagnoses: int = Field(default=8, ge=1, le=100)
    diagnosis_deadline_s: float = Field(default=DEFAULT_DEADLINE_S, gt=0, le=600)
    kube_clusters: str | None = None
    # Per-user authorization (bot/authz): Run:ai decides who may read which project.
    authz_mode: Literal["runai", "off"] = "runai"
    authz_cache_ttl_s: int = Field(default=60, ge=0, le=3600)
    authz_allow_guests: bool = False
    authz_allow_external: bool = False
    channel_projects: dict[str, list[str]] = Field(default_factory=dict)
    # Scale (bot/durable/flight): one diagnosis per storm, a global bound towards Run:ai.
    diagnosis_cache_ttl_s: float = Field(default=30.0, ge=0, le=3600)
    runai_max_concurrent_calls: int = Field(default=64, ge=0, le=10_000)
    # Microsoft Teams (bot/teams): served on POST /api/messages when TEAMS_APP_ID is set.
    teams_app_id: str | None = None
    teams_app_password: SecretStr | None = None
    teams_tenant_id: str | None = None
    teams_openid_metadata_url: str = (
        "https://login.botframework.com/v1/.well-known/openidconfiguration"
    )
    teams_token_issuer: str = "https://api.botframework.com"  # noqa: S105 - a URL, not a secret
    teams_login_url: str | None = None

    def _teams_plain(self) -> dict[str, str]:
        password = self.teams_app_password.get_secret_value() if self.teams_app_password else ""
        return {
            "TEAMS_APP_ID": (self.teams_app_id or "").strip(),
            "TEAMS_APP_PASSWORD": password.strip(),
            "TEAMS_TENANT_ID": (self.teams_tenant_id or "").strip(),
        }

    @property
    def teams_configured(self) -> bool:
        """Whether `runai-why serve` should serve Teams (any Teams secret is set)."""
        return not all(is_placeholder(v) for v in self._teams_plain().values())

    @property
    def slack_configured(self) -> bool:
        """Whether Slack is configured at all (either Slack secret set), for `serve`."""
        token = self.slack_bot_token.get_secret_value() if self.slack_bot_token else ""
        secret = self.slack_signing_secret.get_secret_value() if self.slack_signing_secret else ""
        return not (is_placeholder(token) and is_placeholder(secret))

    def teams_secrets(self) -> tuple[str, str, str, str]:
        """App ID, password, tenant ID and token endpoint for Teams; `ConfigError` if unusable."""
        plain = self._teams_plain()
        unset = [name for name, value in plain.items() if is_placeholder(value)]
        if unset:
            raise ConfigError(
                f"set {', '.join(unset)} (missing or a placeholder) to serve Microsoft Teams; "
                "see README.md, Install in Teams"
            )
        tenant = plain["TEAMS_TENANT_ID"]
        login = (self.teams_login_url or "").strip() or (
            f"https://login.microsoftonline.com/{tenant}/oauth2/v2.0/token"
        )
        return plain["TEAMS_APP_ID"], plain["TEAMS_APP_PASSWORD"], tenant, login

    # Teams answer charts, served by the bot under signed URLs (bot/teams/charts.py).
    teams_public_url: str | None = None
    teams_chart_ttl_s: int = Field(default=7 * 86400, ge=300, le=30 * 86400)
    # The durable work queue (bot/work): bounded, with deadlines, reclaimed after a crash.
    queue_max_items: int = Field(default=1000, ge=1, le=1_000_000)
    queue_deadline_s: float = Field(default=300.0, gt=0, lt=DEDUPE_TTL_S)
    queue_claim_idle_s: float = Field(default=30.0, gt=0, le=3600)
    queue_max_deliveries: int = Field(default=3, ge=1, le=20)
    shutdown_grace_s: float = Field(default=20.0, ge=0, le=600)
    embedded_worker: bool = True
    # The push side (bot/push, bot/alerts, bot/watch): answers nobody asked for.
    alertmanager_token: SecretStr | None = None
    alert_cluster: str | None = None
    alert_channels: dict[str, str] = Field(default_factory=dict)
    watches: list[dict[str, str | bool]] = Field(default_factory=list)
    watch_interval_s: float = Field(default=60.0, ge=1, le=3600)
    watch_storm_threshold: int = Field(default=5, ge=1, le=1000)
    push_group_window_s: float = Field(default=6 * 3600.0, ge=60, le=7 * 86400)
    push_max_posts_per_h: int = Field(default=20, ge=1, le=10_000)

    @field_validator("slack_api_url")
    @classmethod
    def _trailing_slash(cls, value: str) -> str:
        """slack_sdk joins method names onto the base URL, which must end with `/`."""
        return value if value.endswith("/") else value + "/"

    @field_validator("teams_public_url")
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

    def serve_secrets(
        self, *, socket_mode: bool, runai: bool
    ) -> tuple[str, str, str | None] | None:
        """Slack's bot token, signing secret and (Socket Mode) app token for `runai-why serve`.

        None when only Teams is served. Everything `serve` needs is checked at once: the
        settings of each platform being configured (both platforms' names when neither is),
        and with `runai` the Run:ai settings, so one `ConfigError` lists every missing,
        placeholder or malformed setting.
        """
        slack = socket_mode or self.slack_configured or not self.teams_configured
        unset, malformed = self._slack_problems(socket_mode=socket_mode) if slack else ([], [])
        if self.teams_configured:
            unset += [n for n, v in self._teams_plain().items() if is_placeholder(v)]
        if runai:
            runai_unset, runai_malformed = self._runai_problems()
            unset += runai_unset
            malformed += runai_malformed
        if unset or malformed:
            configured = socket_mode or self.slack_configured
            raise ConfigError(
                _serve_problems(unset, malformed, slack=configured, teams=self.teams_configured)
            )
        if not slack:
            return None
        return self._slack_plain(socket_mode=socket_mode)

    def _slack_plain(self, *, socket_mode: bool) -> tuple[str, str, str | None]:
        values = {
            "SLACK_BOT_TOKEN": self.slack_bot_token,
            "SLACK_SIGNING_SECRET": self.slack_signing_secret,
            "SLACK_APP_TOKEN": self.slack_app_token if socket_mode else None,
        }
        token, secret, app = (v.get_secret_value().strip() if v else "" for v in values.values())
        return token, secret, app or None

    def _slack_problems(self, *, socket_mode: bool) -> tuple[list[str], list[str]]:
        """(Slack settings that are unset or placeholders, messages about malformed ones)."""
        token, secret, app = self._slack_plain(socket_mode=socket_mode)
        plain = {"SLACK_BOT_TOKEN": token, "SLACK_SIGNING_SECRET": secret}
        if socket_mode:
            plain["SLACK_APP_TOKEN"] = app or ""
        unset = [k for k, v in plain.items() if is_placeholder(v)]
        malformed = []
        if "SLACK_BOT_TOKEN" not in unset and not token.startswith("xoxb-"):
            malformed.append("SLACK_BOT_TOKEN must be a bot token (xoxb-…)")
        if socket_mode and "SLACK_APP_TOKEN" not in unset and not (app or "").startswith("xapp-"):
            malformed.append("SLACK_APP_TOKEN must be an app-level token (xapp-…)")
        return unset, malformed

    def _runai_problems(self) -> tuple[list[str], list[str]]:
        """(Run:ai settings that are unset or placeholders, messages about malformed ones)."""
        secret = self.runai_client_secret.get_secret_value() if self.runai_client_secret else ""
        unset = [
            name
            for name, value in (
                ("RUNAI_URL", self.runai_url or ""),
                ("RUNAI_CLIENT_ID", self.runai_client_id or ""),
                ("RUNAI_CLIENT_SECRET", secret),
            )
            if is_placeholder(value)
        ]
        if "RUNAI_URL" in unset:
            return unset, []
        url = (self.runai_url or "").strip()
        try:
            parsed = httpx.URL(url)
        except httpx.InvalidURL as error:
            return unset, [f"RUNAI_URL {url!r} is not a valid URL ({error})"]
        if parsed.scheme not in {"https", "http"} or not parsed.host:
            return unset, [f"RUNAI_URL must look like https://acme.run.ai (got {url!r})"]
        return unset, []

    def runai_config(self) -> RunaiConfig:
        """The engine's connection settings; `ConfigError` names everything that is wrong."""
        unset, malformed = self._runai_problems()
        problems = [f"set {', '.join(unset)} to reach a Run:ai control plane"] if unset else []
        if problems or malformed:
            raise ConfigError("; ".join(problems + malformed))
        secret = self.runai_client_secret.get_secret_value() if self.runai_client_secret else ""
        url = (self.runai_url or "").strip()
        return RunaiConfig(
            url=url.rstrip("/"),
            client_id=(self.runai_client_id or "").strip(),
            client_secret=SecretStr(secret),
            timeout_s=self.runai_timeout_s,
            retries=self.runai_retries,
        )


def _serve_problems(unset: list[str], malformed: list[str], *, slack: bool, teams: bool) -> str:
    """One line naming every setting `serve` lacks, in the words of the platforms configured.

    With neither platform configured, it offers both (a Teams install is not told that it
    needs Slack); otherwise it names only what the configured ones lack.
    """
    platforms = []
    if not (slack or teams):
        platforms = [
            "configure Slack (SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET), Microsoft Teams "
            "(TEAMS_APP_ID, TEAMS_APP_PASSWORD, TEAMS_TENANT_ID) or both"
        ]
        unset = [name for name in unset if not name.startswith("SLACK_")]
    problems = [*platforms, *([f"set {', '.join(unset)} (missing or a placeholder)"] * bool(unset))]
    guides = ["deploy/slack-app-manifest.yaml"] * (slack or not teams)
    guides += ["README.md, Install in Teams"] * (teams or not slack)
    return (
        f"{'; '.join(problems + malformed)} before `runai-why serve`; "
        f"see deploy/env.example and {' and '.join(guides)}"
    )
