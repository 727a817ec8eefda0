"""Connection settings for the Run:ai control plane, as the engine receives them.

The bot's single `Settings` object (built at the entry point from the environment) produces
one of these; the diagnosis package never reads the environment itself.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, SecretStr

__all__ = ["RunaiConfig"]


class RunaiConfig(BaseModel):
    """Where the control plane is and how to authenticate and retry.

    Attributes:
        url: control-plane base URL, e.g. ``https://acme.run.ai``.
        client_id: service-account (or user access key) client ID.
        client_secret: its secret; never logged, never rendered.
        timeout_s: per-request timeout (connect, read, write and pool).
        retries: extra attempts on connect errors, 429, 500, 502, 503 and 504.
        backoff_s: base of the exponential backoff between attempts (jitter is added).
        max_backoff_s: cap of one backoff sleep, including a server's ``Retry-After``.
        token_refresh_margin_s: refresh the token this long before it expires.
    """

    model_config = ConfigDict(frozen=True)

    url: str
    client_id: str
    client_secret: SecretStr
    timeout_s: float = Field(default=10.0, gt=0, le=120)
    retries: int = Field(default=3, ge=0, le=10)
    backoff_s: float = Field(default=0.25, ge=0, le=30)
    max_backoff_s: float = Field(default=8.0, ge=0, le=120)
    token_refresh_margin_s: float = Field(default=60.0, ge=0, le=3600)
