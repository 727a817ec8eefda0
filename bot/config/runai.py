"""The Run:ai control plane the bot reads: where it is, its service account, how hard to try."""

from __future__ import annotations

import httpx
from pydantic import Field, SecretStr

from bot.config.base import Concern, ConfigError, Problem, is_placeholder, plain
from diagnosis import RunaiConfig

__all__ = ["RunaiSettings"]


class RunaiSettings(Concern):
    """The Run:ai control plane (`RUNAI_*`)."""

    url: str | None = Field(
        default=None,
        validation_alias="runai_url",
        description="`RUNAI_URL`, the control-plane base URL (e.g. https://acme.run.ai).",
    )
    client_id: str | None = Field(
        default=None,
        validation_alias="runai_client_id",
        description="`RUNAI_CLIENT_ID`, a service account or access key client ID.",
    )
    client_secret: SecretStr | None = Field(
        default=None,
        validation_alias="runai_client_secret",
        description="`RUNAI_CLIENT_SECRET`, that client's secret.",
    )
    timeout_s: float = Field(
        default=10.0,
        gt=0,
        le=120,
        validation_alias="runai_timeout_s",
        description="`RUNAI_TIMEOUT_S`, the per-request timeout in seconds.",
    )
    retries: int = Field(
        default=3,
        ge=0,
        le=10,
        validation_alias="runai_retries",
        description="`RUNAI_RETRIES`, extra attempts on transient failures.",
    )
    max_concurrent_calls: int = Field(
        default=64,
        ge=0,
        le=10_000,
        validation_alias="runai_max_concurrent_calls",
        description=(
            "`RUNAI_MAX_CONCURRENT_CALLS`, calls to Run:ai in flight at once across every "
            "replica sharing `REDIS_URL` (0: no global limit)."
        ),
    )

    def problems(self) -> list[Problem]:
        """What keeps the bot from reaching the control plane: unset or malformed settings."""
        unset = [
            Problem(name)
            for name, value in (
                ("RUNAI_URL", plain(self.url)),
                ("RUNAI_CLIENT_ID", plain(self.client_id)),
                ("RUNAI_CLIENT_SECRET", plain(self.client_secret)),
            )
            if is_placeholder(value)
        ]
        if any(problem.variable == "RUNAI_URL" for problem in unset):
            return unset
        url = plain(self.url)
        try:
            parsed = httpx.URL(url)
        except httpx.InvalidURL as error:
            return [*unset, Problem("RUNAI_URL", f"RUNAI_URL {url!r} is not a valid URL ({error})")]
        if parsed.scheme not in {"https", "http"} or not parsed.host:
            shape = f"RUNAI_URL must look like https://acme.run.ai (got {url!r})"
            return [*unset, Problem("RUNAI_URL", shape)]
        if "/api/" in f"{parsed.path.rstrip('/')}/":  # every call would read /api/v1/api/v1/…
            shape = f"RUNAI_URL is the control plane's address, without /api/… (got {url!r})"
            return [*unset, Problem("RUNAI_URL", shape)]
        return unset

    def config(self) -> RunaiConfig:
        """The engine's connection settings; `ConfigError` names everything that is wrong."""
        problems = self.problems()
        if problems:
            raise ConfigError(runai_message(problems))
        return RunaiConfig(
            url=plain(self.url).rstrip("/"),
            client_id=plain(self.client_id),
            client_secret=SecretStr(
                secret.get_secret_value() if (secret := self.client_secret) else ""
            ),
            timeout_s=self.timeout_s,
            retries=self.retries,
        )


def runai_message(problems: list[Problem]) -> str:
    """One line naming what keeps the bot from the control plane (commands other than serve)."""
    unset = [p.variable for p in problems if p.malformed is None]
    sentences = [f"set {', '.join(unset)} to reach a Run:ai control plane"] if unset else []
    return "; ".join(sentences + [p.malformed for p in problems if p.malformed is not None])
