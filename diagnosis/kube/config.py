"""Connection settings for one Kubernetes API server: URL, bearer token and TLS material.

A `KubeTarget` is fully resolved (`KubeAccess` in `access.py` builds them from `KUBE_CLUSTERS`).
Files it names are read when a client is created (CA, client certificate → `ssl_context`) or
on each request (token files, re-read when they change, by `TokenSource`); the environment is
never read here. Tokens and private keys are `SecretStr`s, never logged or put in messages.
"""

from __future__ import annotations

import ssl
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Self

import httpx
from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

from diagnosis.errors import DiagnosisError, InvalidRequest

if TYPE_CHECKING:
    from collections.abc import Generator

__all__ = [
    "SERVICE_ACCOUNT_CA_FILE",
    "SERVICE_ACCOUNT_TOKEN_FILE",
    "BearerTokenAuth",
    "KubeAccessError",
    "KubeTarget",
    "TokenSource",
    "TokenUnreadable",
    "ssl_context",
]

SERVICE_ACCOUNT_TOKEN_FILE = "/var/run/secrets/kubernetes.io/serviceaccount/token"  # noqa: S105 - a path
"""Where the kubelet projects the pod's service-account token (rotated in place)."""

SERVICE_ACCOUNT_CA_FILE = "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt"
"""The cluster CA bundle projected next to the service-account token."""


class KubeAccessError(InvalidRequest, ValueError):
    """The Kubernetes access configuration is unusable (named cluster, context or file).

    Also a `ValueError`, so a pydantic validator that parses `KUBE_CLUSTERS` reports it as a
    validation error of that setting.
    """


class KubeTarget(BaseModel):
    """One Kubernetes API server and how to authenticate to it.

    Attributes:
        api_url: the API server URL; a path prefix (``/k8s/clusters/c-x``) is kept and API
            paths are appended to it.
        source: where this target came from (for messages; never contains a secret).
        token: a bearer token given directly (simulator, tests); never logged or rendered.
        token_file: a file holding the bearer token; re-read whenever it changes.
            Takes precedence over `token`, as in client-go.
        ca_file: PEM CA bundle that signs the server certificate.
        ca_data: the same, inline (PEM text).
        insecure: skip TLS verification (explicit opt-in only).
        client_cert_file: PEM client certificate for mutual TLS.
        client_key_file: its private key.
        client_cert_data: the client certificate, inline (PEM text).
        client_key_data: its private key, inline (PEM text); never logged or rendered.
        tls_server_name: name to verify the server certificate against instead of the host.
        timeout_s: per-request timeout (connect, read, write and pool).
        retries: extra attempts on connect errors, 429, 500, 502, 503 and 504.
        backoff_s: base of the exponential backoff between attempts.
        max_backoff_s: cap of one backoff sleep, including a server's ``Retry-After``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    api_url: str
    source: str = "explicit API URL"
    token: SecretStr | None = None
    token_file: Path | None = None
    ca_file: Path | None = None
    ca_data: str | None = None
    insecure: bool = False
    client_cert_file: Path | None = None
    client_key_file: Path | None = None
    client_cert_data: str | None = None
    client_key_data: SecretStr | None = None
    tls_server_name: str | None = None
    timeout_s: float = Field(default=10.0, gt=0, le=120)
    retries: int = Field(default=2, ge=0, le=10)
    backoff_s: float = Field(default=0.25, ge=0, le=30)
    max_backoff_s: float = Field(default=4.0, ge=0, le=120)

    @field_validator("api_url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        url = httpx.URL(value)
        if url.scheme not in {"http", "https"} or not url.host:
            raise ValueError("api_url must be an http(s) URL with a host")
        if url.query or url.fragment or url.userinfo:
            raise ValueError("api_url must not carry credentials, a query or a fragment")
        return value

    @classmethod
    def for_url(
        cls, api_url: str, token: str | None, *, timeout_s: float = 10.0, retries: int = 2
    ) -> Self:
        """A target for `api_url` with `token` given directly (plain http allowed; simulator)."""
        secret = None if token is None else SecretStr(token)
        return cls(api_url=api_url, token=secret, timeout_s=timeout_s, retries=retries)

    @property
    def uses_tls(self) -> bool:
        """Whether requests go over https (and so need an SSL context)."""
        return httpx.URL(self.api_url).scheme == "https"


def ssl_context(target: KubeTarget) -> ssl.SSLContext:
    """The SSL context for `target`: its CA (else the system trust), client cert, insecure flag.

    Raises:
        KubeAccessError: a named file is missing or a PEM block does not load.
    """
    for path in (target.ca_file, target.client_cert_file, target.client_key_file):
        if path is not None and not path.is_file():
            raise KubeAccessError(f"{target.source}: TLS material does not load (no file {path})")
    try:
        if target.insecure:
            context = ssl.create_default_context()
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        elif target.ca_file is not None or target.ca_data is not None:
            context = ssl.create_default_context(
                cafile=None if target.ca_file is None else str(target.ca_file),
                cadata=target.ca_data,
            )
        else:
            context = ssl.create_default_context()
        _load_client_cert(context, target)
    except (OSError, ssl.SSLError, ValueError) as exc:
        raise KubeAccessError(f"{target.source}: TLS material does not load ({_why(exc)})") from exc
    return context


def _why(exc: Exception) -> str:
    """A short reason; for a missing file, the file (no file contents are ever quoted)."""
    if isinstance(exc, OSError) and exc.strerror and exc.filename:
        return f"{exc.strerror}: {exc.filename}"
    return str(exc) or type(exc).__name__


def _load_client_cert(context: ssl.SSLContext, target: KubeTarget) -> None:
    """Load the client certificate and key; inline PEM goes through a private temp dir."""
    cert_data, key_data = target.client_cert_data, target.client_key_data
    if cert_data is None and key_data is None:
        if target.client_cert_file is not None:
            key = None if target.client_key_file is None else str(target.client_key_file)
            context.load_cert_chain(str(target.client_cert_file), key)
        return
    with tempfile.TemporaryDirectory(prefix="runai-why-kube-") as scratch:
        cert_path = target.client_cert_file
        if cert_data is not None:
            cert_path = Path(scratch, "client.crt")
            cert_path.write_text(cert_data, encoding="utf-8")
        key_path = target.client_key_file
        if key_data is not None:
            key_path = Path(scratch, "client.key")
            key_path.touch(mode=0o600)
            key_path.write_text(key_data.get_secret_value(), encoding="utf-8")
        if cert_path is None:
            raise ValueError("a client key without a client certificate")
        context.load_cert_chain(str(cert_path), None if key_path is None else str(key_path))


# ------------------------------------------------------------------ bearer token


class TokenUnreadable(DiagnosisError):
    """The token file cannot be read (its path is in the message; its contents never are)."""


class TokenSource:
    """The bearer token: a file re-read whenever its stat changes, else a fixed value.

    Projected service-account tokens rotate in place, so the file is stat-ed on every request
    and read again when its inode, size or mtime differ. When the file cannot be read, the last
    value read from it is used, else the fixed token (client-go's precedence).
    """

    def __init__(self, token: SecretStr | None = None, path: Path | None = None) -> None:
        self._fixed = None if token is None else token.get_secret_value()
        self._path = path
        self._stamp: tuple[int, ...] | None = None
        self._read: str | None = None

    @property
    def rotates(self) -> bool:
        """Whether a 401 is worth re-reading the token for."""
        return self._path is not None

    def get(self, *, force: bool = False) -> str | None:
        """The current token (None: send no Authorization header).

        Raises:
            TokenUnreadable: the file cannot be read and there is no other token to use.
        """
        if self._path is None:
            return self._fixed
        try:
            self._refresh(self._path, force=force)
        except TokenUnreadable:
            if self._read is None and self._fixed is None:
                raise
        return self._read or self._fixed

    def secrets(self) -> list[str]:
        """Token values to scrub from any text that leaves the client."""
        return [t for t in (self._read, self._fixed) if t]

    def _refresh(self, path: Path, *, force: bool) -> None:
        try:
            stat = path.stat()
            stamp = (stat.st_ino, stat.st_dev, stat.st_size, stat.st_mtime_ns)
            if not force and stamp == self._stamp and self._read is not None:
                return
            token = path.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as exc:
            raise TokenUnreadable(f"cannot read the token file {path}") from exc
        if not token:
            raise TokenUnreadable(f"the token file {path} is empty")
        self._read, self._stamp = token, stamp


class BearerTokenAuth(httpx.Auth):
    """Sets ``Authorization: Bearer`` from a `TokenSource`; on a 401, re-reads it once."""

    def __init__(self, source: TokenSource) -> None:
        self._source = source

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response]:
        """Attach the token; retry once with a freshly read file when the server says 401."""
        token = self._source.get()
        if token:
            request.headers["Authorization"] = f"Bearer {token}"
        response = yield request
        if response.status_code == httpx.codes.UNAUTHORIZED and self._source.rotates:
            fresh = self._source.get(force=True)
            if fresh and fresh != token:
                request.headers["Authorization"] = f"Bearer {fresh}"
                yield request
