"""`KubeAccess`: which Kubernetes API server (and credentials) serves each Run:ai cluster.

Access is explicit only: a cluster UUID absent from the mapping has no Tier 2. Entries are
resolved into `KubeTarget`s when parsed, so a bad setting fails at startup with a message naming
the cluster and the problem (and never a credential). Kubeconfig support covers what a
read-only service account needs: server, CA (file or data), insecure-skip-tls-verify,
tls-server-name, and token / tokenFile / client certificate (file or data). Exec and
auth-provider plugins run external programs and are refused.
"""

from __future__ import annotations

import base64
import binascii
import json
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, SecretStr, TypeAdapter, ValidationError

from diagnosis.kube.config import (
    SERVICE_ACCOUNT_CA_FILE,
    SERVICE_ACCOUNT_TOKEN_FILE,
    KubeAccessError,
    KubeTarget,
)

__all__ = ["InClusterEntry", "KubeAccess", "KubeEntry", "KubeconfigEntry", "TokenEntry"]

_SETTING = "KUBE_CLUSTERS"


class KubeAccess:
    """An explicit mapping of Run:ai cluster UUID → `KubeTarget`.

    Args:
        targets: cluster UUID (any case) → target.
    """

    def __init__(self, targets: Mapping[str, KubeTarget] | None = None) -> None:
        self._targets: dict[str, KubeTarget] = {}
        for key, target in (targets or {}).items():
            cluster_id = _cluster_id(key)
            if cluster_id is None:
                raise KubeAccessError(f"{_SETTING}: {key!r} is not a cluster UUID")
            self._targets[cluster_id] = target

    @classmethod
    def parse(
        cls, value: str | Mapping[str, Any] | None, *, env: Mapping[str, str] | None = None
    ) -> KubeAccess:
        """Build from the `KUBE_CLUSTERS` JSON text (or its decoded mapping).

        Args:
            value: ``{"<cluster uuid>": {"mode": ...}, ...}``; empty or None means no Tier 2.
            env: environment for in-cluster entries (`KUBERNETES_SERVICE_HOST`/`_PORT`).

        Raises:
            KubeAccessError: naming the cluster and what is wrong with its entry.
        """
        if value is None or (isinstance(value, str) and not value.strip()):
            return cls()
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except ValueError as exc:
                raise KubeAccessError(f"{_SETTING} is not valid JSON ({exc})") from exc
        if not isinstance(value, Mapping):
            raise KubeAccessError(f"{_SETTING} must be a JSON object of cluster UUID → access")
        targets: dict[str, KubeTarget] = {}
        for key, raw in value.items():
            cluster_id = _cluster_id(str(key))
            if cluster_id is None:
                raise KubeAccessError(f"{_SETTING}: {key!r} is not a cluster UUID")
            try:
                targets[cluster_id] = _resolve(_entry(raw), env or {})
            except KubeAccessError as exc:
                raise KubeAccessError(f"{_SETTING}[{cluster_id}]: {exc}") from exc
        return cls(targets)

    def target(self, cluster_id: str) -> KubeTarget | None:
        """The target for `cluster_id`; None when Tier 2 is not configured for that cluster."""
        key = _cluster_id(cluster_id)
        return None if key is None else self._targets.get(key)

    @property
    def cluster_ids(self) -> tuple[str, ...]:
        """The configured cluster UUIDs (lower case)."""
        return tuple(self._targets)

    def __len__(self) -> int:
        return len(self._targets)

    def __repr__(self) -> str:
        return f"KubeAccess({', '.join(self._targets) or 'no clusters'})"


def _cluster_id(value: str) -> str | None:
    try:
        return str(uuid.UUID(value.strip()))
    except ValueError:
        return None


def _entry(raw: Any) -> InClusterEntry | KubeconfigEntry | TokenEntry:
    try:
        return _ENTRY.validate_python(raw)
    except ValidationError as exc:
        problems = [
            f"{'.'.join(str(p) for p in e['loc']) or 'entry'}: {e['msg']}"
            for e in exc.errors(include_input=False, include_url=False)
        ]
        raise KubeAccessError("; ".join(problems)) from exc


def _resolve(
    entry: InClusterEntry | KubeconfigEntry | TokenEntry, env: Mapping[str, str]
) -> KubeTarget:
    timeout_s, retries = entry.timeout_s, entry.retries
    try:
        if isinstance(entry, InClusterEntry):
            host = env.get("KUBERNETES_SERVICE_HOST", "").strip()
            port = env.get("KUBERNETES_SERVICE_PORT", "").strip() or "443"
            if not host:
                raise KubeAccessError("in-cluster: KUBERNETES_SERVICE_HOST is not set")
            host = f"[{host}]" if ":" in host else host
            return KubeTarget(
                api_url=f"https://{host}:{port}",
                source="in-cluster service account",
                token_file=_path(entry.token_file),
                ca_file=_path(entry.ca_file),
                timeout_s=timeout_s,
                retries=retries,
            )
        if isinstance(entry, TokenEntry):
            if entry.insecure and entry.ca_file:
                raise KubeAccessError("token: ca_file together with insecure: true")
            return KubeTarget(
                api_url=entry.api_url,
                source=f"API {entry.api_url}",
                token_file=_path(entry.token_file),
                ca_file=None if entry.ca_file is None else _path(entry.ca_file),
                insecure=entry.insecure,
                timeout_s=timeout_s,
                retries=retries,
            )
        target = _from_kubeconfig(entry)
        return target.model_copy(update={"timeout_s": timeout_s, "retries": retries})
    except ValidationError as exc:
        first = exc.errors(include_input=False, include_url=False)[0]
        raise KubeAccessError(f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}") from exc


def _path(text: str, base: Path | None = None) -> Path:
    path = Path(text).expanduser()
    return path if base is None or path.is_absolute() else base / path


# ------------------------------------------------------------------ kubeconfig


def _from_kubeconfig(entry: KubeconfigEntry) -> KubeTarget:
    """Resolve `entry.context` of the kubeconfig at `entry.path` into a target."""
    path = _path(entry.path)
    where = f"kubeconfig {entry.path} context {entry.context!r}"
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise KubeAccessError(f"kubeconfig {entry.path}: {exc.strerror or exc}") from exc
    except yaml.YAMLError as exc:
        raise KubeAccessError(f"kubeconfig {entry.path} is not valid YAML") from exc
    if not isinstance(document, dict):
        raise KubeAccessError(f"kubeconfig {entry.path} is not a kubeconfig document")
    context = _named(document, "contexts", "context", entry.context, where)
    cluster = _named(document, "clusters", "cluster", context.get("cluster"), where)
    user = _named(document, "users", "user", context.get("user"), where)
    base = path.parent  # kubectl resolves relative file references against the kubeconfig
    for plugin in ("exec", "auth-provider"):
        if user.get(plugin):
            raise KubeAccessError(
                f"{where}: `{plugin}` credential plugins are not supported "
                "(use a service-account token, tokenFile or client certificate)"
            )
    if user.get("username") or user.get("password"):
        raise KubeAccessError(f"{where}: basic auth is not supported")
    if cluster.get("proxy-url"):
        raise KubeAccessError(f"{where}: proxy-url is not supported")
    insecure = cluster.get("insecure-skip-tls-verify") is True
    ca_file = _file(cluster, "certificate-authority", base)
    ca_data = _pem(cluster, "certificate-authority-data", where)
    if insecure and (ca_file or ca_data):
        raise KubeAccessError(
            f"{where}: a certificate authority together with insecure-skip-tls-verify"
        )
    server = cluster.get("server")
    if not isinstance(server, str) or not server:
        raise KubeAccessError(f"{where}: cluster {context.get('cluster')!r} has no server")
    token = user.get("token")
    key_data = _pem(user, "client-key-data", where)
    target = KubeTarget(
        api_url=server,
        source=where,
        token=SecretStr(token) if isinstance(token, str) and token else None,
        token_file=_file(user, "tokenFile", base),
        ca_file=ca_file,
        ca_data=ca_data,
        insecure=insecure,
        client_cert_file=_file(user, "client-certificate", base),
        client_key_file=_file(user, "client-key", base),
        client_cert_data=_pem(user, "client-certificate-data", where),
        client_key_data=None if key_data is None else SecretStr(key_data),
        tls_server_name=cluster.get("tls-server-name") or None,
    )
    if not (
        target.token or target.token_file or target.client_cert_file or target.client_cert_data
    ):
        raise KubeAccessError(f"{where}: the user has no token, tokenFile or client certificate")
    return target


def _named(
    document: dict[str, Any], section: str, member: str, name: Any, where: str
) -> dict[str, Any]:
    """The `member` body of the item called `name` in `document[section]`."""
    if not isinstance(name, str) or not name:
        raise KubeAccessError(f"{where}: the context names no {member}")
    for item in document.get(section) or ():
        if isinstance(item, dict) and item.get("name") == name:
            body = item.get(member)
            return body if isinstance(body, dict) else {}
    singular = section.removesuffix("s")
    raise KubeAccessError(f"{where}: no {singular} named {name!r} in the kubeconfig")


def _file(section: dict[str, Any], key: str, base: Path) -> Path | None:
    value = section.get(key)
    return _path(value, base) if isinstance(value, str) and value else None


def _pem(section: dict[str, Any], key: str, where: str) -> str | None:
    """A base64 `*-data` member decoded to PEM text (its contents never reach a message)."""
    value = section.get(key)
    if not value:
        return None
    try:
        return base64.b64decode(str(value), validate=True).decode("ascii")
    except (binascii.Error, UnicodeDecodeError) as exc:
        raise KubeAccessError(f"{where}: {key} is not base64-encoded PEM") from exc


# ------------------------------------------------------------------ KUBE_CLUSTERS entries


class _Entry(BaseModel):
    """Settings every entry may carry; unknown keys are typos and refused."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    timeout_s: float = Field(default=10.0, gt=0, le=120)
    retries: int = Field(default=2, ge=0, le=10)


class InClusterEntry(_Entry):
    """``{"mode": "in-cluster"}``: the bot's own service account (paths overridable)."""

    mode: Literal["in-cluster"]
    token_file: str = SERVICE_ACCOUNT_TOKEN_FILE
    ca_file: str = SERVICE_ACCOUNT_CA_FILE


class KubeconfigEntry(_Entry):
    """``{"mode": "kubeconfig", "path": ..., "context": ...}``: one named kubeconfig context."""

    mode: Literal["kubeconfig"]
    path: str = Field(min_length=1)
    context: str = Field(min_length=1)


class TokenEntry(_Entry):
    """``{"mode": "token", "api_url": ..., "token_file": ...}``: an explicit API server."""

    mode: Literal["token"]
    api_url: str = Field(min_length=1)
    token_file: str = Field(min_length=1)
    ca_file: str | None = None
    insecure: bool = False


KubeEntry = Annotated[InClusterEntry | KubeconfigEntry | TokenEntry, Field(discriminator="mode")]
"""One value of the `KUBE_CLUSTERS` mapping."""

_ENTRY: TypeAdapter[InClusterEntry | KubeconfigEntry | TokenEntry] = TypeAdapter(KubeEntry)
