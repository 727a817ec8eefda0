"""`KubeAccess` parsing (KUBE_CLUSTERS, kubeconfig, in-cluster), token rotation and TLS setup."""

from __future__ import annotations

import base64
import json
import os
import shutil
import ssl
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from pydantic import SecretStr

from diagnosis.errors import AuthError, InvalidRequest
from diagnosis.kube.access import KubeAccess
from diagnosis.kube.client import KubeClient
from diagnosis.kube.config import (
    SERVICE_ACCOUNT_CA_FILE,
    SERVICE_ACCOUNT_TOKEN_FILE,
    KubeAccessError,
    KubeTarget,
    TokenSource,
    ssl_context,
)

CLUSTER = "71f69d83-ba66-4822-adf5-55ce55efd210"
OTHER = "0b9e3c3a-6a53-4c52-9d11-3c7a2f3e5b01"
SECRET_TOKEN = "kubeconfig-token-Zm9vYmFy"
ENV = {"KUBERNETES_SERVICE_HOST": "10.96.0.1", "KUBERNETES_SERVICE_PORT": "443"}
NODE_PATH = "/api/v1/nodes/gpu-node-7"


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


@pytest.fixture(scope="module")
def pki(tmp_path_factory) -> dict[str, str]:
    """A throwaway self-signed certificate and key, made with the openssl CLI."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("openssl CLI not available")
    directory = tmp_path_factory.mktemp("pki")
    cert, key = directory / "client.crt", directory / "client.key"
    subprocess.run(  # noqa: S603 - fixed arguments, test-only
        [openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-keyout", str(key), "-out", str(cert), "-days", "2", "-subj", "/CN=runai-why-test"],
        check=True, capture_output=True,
    )  # fmt: skip
    return {
        "cert": cert.read_text(),
        "key": key.read_text(),
        "cert_file": str(cert),
        "key_file": str(key),
    }


def kubeconfig(
    tmp_path: Path, user: dict[str, Any], cluster: dict[str, Any] | None = None, **extra: Any
) -> Path:
    document = {
        "apiVersion": "v1",
        "kind": "Config",
        "current-context": "dev",
        "clusters": [
            {"name": "prod-a-cluster", "cluster": cluster or {"server": "https://prod-a.example.com:6443", "certificate-authority-data": b64("CA PEM")}},
            {"name": "dev-cluster", "cluster": {"server": "https://dev.example.com:6443"}},
        ],
        "contexts": [
            {"name": "prod-a", "context": {"cluster": "prod-a-cluster", "user": "diagnoser", "namespace": "runai-ml-team"}},
            {"name": "dev", "context": {"cluster": "dev-cluster", "user": "dev-user"}},
        ],
        "users": [{"name": "diagnoser", "user": user}, {"name": "dev-user", "user": {"token": "dev"}}],
        **extra,
    }  # fmt: skip
    path = tmp_path / "config"
    path.write_text(yaml.safe_dump(document))
    return path


def secret(value: SecretStr | None) -> str:
    """The revealed value of a secret the test expects to be set."""
    assert value is not None, "the secret is not set"
    return value.get_secret_value()


def configured(access: KubeAccess, cluster: str) -> KubeTarget:
    """The target `access` has for `cluster`; the test fails when there is none."""
    target = access.target(cluster)
    assert target is not None, f"no Kubernetes target for {cluster}"
    return target


def from_kubeconfig(path: Path, context: str = "prod-a") -> KubeTarget:
    access = KubeAccess.parse(
        {CLUSTER: {"mode": "kubeconfig", "path": str(path), "context": context}}
    )
    return configured(access, CLUSTER)


# ------------------------------------------------------------------ KUBE_CLUSTERS


def test_parse_json_setting(tmp_path):
    path = kubeconfig(tmp_path, {"token": SECRET_TOKEN})
    text = json.dumps({
        CLUSTER.upper(): {"mode": "kubeconfig", "path": str(path), "context": "prod-a"},
        OTHER: {"mode": "token", "api_url": f"http://127.0.0.1:8600/k8s/{OTHER}", "token_file": "/run/t", "timeout_s": 5},
    })  # fmt: skip

    access = KubeAccess.parse(text)

    assert access.cluster_ids == (CLUSTER, OTHER)
    assert len(access) == 2
    prod = configured(access, CLUSTER)
    assert prod.api_url == "https://prod-a.example.com:6443"
    assert secret(prod.token) == SECRET_TOKEN
    assert prod.ca_data == "CA PEM"
    sim = configured(access, OTHER.upper())
    assert (sim.api_url, sim.token_file, sim.timeout_s) == (
        f"http://127.0.0.1:8600/k8s/{OTHER}",
        Path("/run/t"),
        5.0,
    )
    assert access.target("5e0d7d3a-0000-4000-8000-000000000000") is None
    assert access.target("not-a-uuid") is None
    assert SECRET_TOKEN not in repr(access) + repr(prod)


@pytest.mark.parametrize("value", [None, "", "  ", "{}", {}])
def test_empty_setting_means_no_tier_2(value):
    access = KubeAccess.parse(value)

    assert len(access) == 0
    assert access.target(CLUSTER) is None


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("{not json", "KUBE_CLUSTERS is not valid JSON"),
        ("[]", "must be a JSON object"),
        ({"prod": {"mode": "in-cluster"}}, "'prod' is not a cluster UUID"),
        ({CLUSTER: {"mode": "ssh"}}, f"KUBE_CLUSTERS[{CLUSTER}]: entry: Input tag 'ssh'"),
        ({CLUSTER: "in-cluster"}, f"KUBE_CLUSTERS[{CLUSTER}]"),
        ({CLUSTER: {"mode": "token", "api_url": "http://x"}}, "token.token_file: Field required"),
        (
            {
                CLUSTER: {
                    "mode": "token",
                    "api_url": "http://x",
                    "token_file": "/t",
                    "tokenfile": "/t",
                }
            },
            "token.tokenfile: Extra inputs are not permitted",
        ),
        (
            {CLUSTER: {"mode": "token", "api_url": "ftp://x", "token_file": "/t"}},
            "api_url must be an http(s) URL",
        ),
        (
            {CLUSTER: {"mode": "token", "api_url": "https://u:pw@x", "token_file": "/t"}},
            "must not carry credentials",
        ),
        (
            {
                CLUSTER: {
                    "mode": "token",
                    "api_url": "https://x",
                    "token_file": "/t",
                    "ca_file": "/ca",
                    "insecure": True,
                }
            },
            "ca_file together with insecure",
        ),
        (
            {
                CLUSTER: {
                    "mode": "kubeconfig",
                    "path": "/nonexistent/kubeconfig",
                    "context": "prod-a",
                }
            },
            "kubeconfig /nonexistent/kubeconfig: No such file or directory",
        ),
        ({CLUSTER: {"mode": "kubeconfig", "path": "/x"}}, "kubeconfig.context: Field required"),
        (
            {CLUSTER: {"mode": "in-cluster"}},
            f"KUBE_CLUSTERS[{CLUSTER}]: in-cluster: KUBERNETES_SERVICE_HOST is not set",
        ),
        (
            {CLUSTER: {"mode": "token", "api_url": "http://x", "token_file": "/t", "retries": 99}},
            "retries: Input should be less than or equal to 10",
        ),
    ],
)
def test_bad_settings_name_the_cluster_and_the_problem(value, problem):
    with pytest.raises(KubeAccessError) as caught:
        KubeAccess.parse(value)

    assert problem in str(caught.value)
    assert isinstance(caught.value, InvalidRequest)
    assert isinstance(caught.value, ValueError)  # usable inside a pydantic settings validator


# ------------------------------------------------------------------ kubeconfig


def test_kubeconfig_table_token_and_ca_data(tmp_path):
    target = from_kubeconfig(kubeconfig(tmp_path, {"token": SECRET_TOKEN}))

    assert target.source == f"kubeconfig {tmp_path / 'config'} context 'prod-a'"
    assert (target.insecure, target.ca_file, target.token_file) == (False, None, None)


def test_kubeconfig_token_file_relative_to_the_kubeconfig(tmp_path):
    cluster = {
        "server": "https://prod-a.example.com/k8s/clusters/c-x7k2p",
        "certificate-authority": "certs/ca.crt",
        "tls-server-name": "kubernetes",
    }
    target = from_kubeconfig(kubeconfig(tmp_path, {"tokenFile": "tokens/sa"}, cluster))

    assert target.api_url == "https://prod-a.example.com/k8s/clusters/c-x7k2p"
    assert target.token_file == tmp_path / "tokens" / "sa"
    assert target.ca_file == tmp_path / "certs" / "ca.crt"
    assert target.tls_server_name == "kubernetes"
    assert target.token is None


def test_kubeconfig_client_certificate_data(tmp_path):
    user = {"client-certificate-data": b64("CERT PEM"), "client-key-data": b64("KEY PEM")}
    target = from_kubeconfig(kubeconfig(tmp_path, user))

    assert target.client_cert_data == "CERT PEM"
    assert secret(target.client_key_data) == "KEY PEM"
    assert "KEY PEM" not in repr(target)


def test_kubeconfig_client_certificate_files_and_insecure(tmp_path):
    user = {"client-certificate": "/etc/kube/diag.crt", "client-key": "diag.key"}
    cluster = {"server": "https://10.0.0.1:6443", "insecure-skip-tls-verify": True}
    target = from_kubeconfig(kubeconfig(tmp_path, user, cluster))

    assert (target.client_cert_file, target.client_key_file) == (
        Path("/etc/kube/diag.crt"),
        tmp_path / "diag.key",
    )
    assert target.insecure is True


def test_kubeconfig_other_context_is_chosen_explicitly(tmp_path):
    target = from_kubeconfig(kubeconfig(tmp_path, {"token": SECRET_TOKEN}), context="dev")

    assert target.api_url == "https://dev.example.com:6443"
    assert secret(target.token) == "dev"


@pytest.mark.parametrize(
    ("user", "cluster", "context", "problem"),
    [
        ({"token": "t"}, None, "prod-b", "no context named 'prod-b' in the kubeconfig"),
        (
            {
                "exec": {
                    "apiVersion": "client.authentication.k8s.io/v1beta1",
                    "command": "aws",
                    "args": ["eks", "get-token"],
                }
            },
            None,
            "prod-a",
            "context 'prod-a': `exec` credential plugins are not supported",
        ),
        (
            {"auth-provider": {"name": "oidc", "config": {"id-token": SECRET_TOKEN}}},
            None,
            "prod-a",
            "`auth-provider` credential plugins are not supported",
        ),
        (
            {"username": "admin", "password": SECRET_TOKEN},
            None,
            "prod-a",
            "basic auth is not supported",
        ),
        ({}, None, "prod-a", "the user has no token, tokenFile or client certificate"),
        (
            {"token": "t"},
            {"certificate-authority-data": b64("CA")},
            "prod-a",
            "cluster 'prod-a-cluster' has no server",
        ),
        (
            {"token": "t"},
            {"server": "https://x", "certificate-authority-data": "%%%"},
            "prod-a",
            "certificate-authority-data is not base64-encoded PEM",
        ),
        (
            {"token": "t"},
            {
                "server": "https://x",
                "certificate-authority": "/ca.crt",
                "insecure-skip-tls-verify": True,
            },
            "prod-a",
            "insecure-skip-tls-verify",
        ),
        (
            {"token": "t"},
            {"server": "https://x", "proxy-url": "socks5://localhost:1080"},
            "prod-a",
            "proxy-url is not supported",
        ),
        (
            {"client-key-data": b64(SECRET_TOKEN)},
            None,
            "prod-a",
            "no token, tokenFile or client certificate",
        ),
    ],
    ids=[
        "missing-context",
        "exec",
        "auth-provider",
        "basic",
        "no-credentials",
        "no-server",
        "bad-ca-data",
        "ca-and-insecure",
        "proxy",
        "key-without-cert",
    ],
)
def test_kubeconfig_errors(tmp_path, user, cluster, context, problem):
    path = kubeconfig(tmp_path, user, cluster)

    with pytest.raises(KubeAccessError) as caught:
        from_kubeconfig(path, context)

    message = str(caught.value)
    assert message.startswith(f"KUBE_CLUSTERS[{CLUSTER}]: ")
    assert problem in message
    assert SECRET_TOKEN not in message


def test_kubeconfig_missing_user_and_cluster(tmp_path):
    path = kubeconfig(
        tmp_path,
        {"token": "t"},
        contexts=[{"name": "prod-a", "context": {"cluster": "gone", "user": "diagnoser"}}],
    )
    with pytest.raises(KubeAccessError, match="no cluster named 'gone'"):
        from_kubeconfig(path)

    path.write_text(
        "contexts: [{name: prod-a, context: {cluster: prod-a-cluster}}]\nclusters: [{name: prod-a-cluster, cluster: {server: 'https://x'}}]"
    )
    with pytest.raises(KubeAccessError, match="the context names no user"):
        from_kubeconfig(path)


@pytest.mark.parametrize("text", ["clusters: [unclosed", "- just\n- a list\n"])
def test_kubeconfig_not_yaml_or_not_a_mapping(tmp_path, text):
    path = tmp_path / "config"
    path.write_text(text)

    with pytest.raises(KubeAccessError, match="kubeconfig"):
        from_kubeconfig(path)


def test_kubeconfig_path_expands_home(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / ".kube").mkdir()
    kubeconfig(tmp_path / ".kube", {"token": "t"})

    access = KubeAccess.parse(
        {CLUSTER: {"mode": "kubeconfig", "path": "~/.kube/config", "context": "prod-a"}}
    )

    assert configured(access, CLUSTER).api_url == "https://prod-a.example.com:6443"


# ------------------------------------------------------------------ in-cluster


def test_in_cluster_defaults():
    access = KubeAccess.parse({CLUSTER: {"mode": "in-cluster"}}, env=ENV)

    target = configured(access, CLUSTER)
    assert target.api_url == "https://10.96.0.1:443"
    assert (str(target.token_file), str(target.ca_file)) == (
        SERVICE_ACCOUNT_TOKEN_FILE,
        SERVICE_ACCOUNT_CA_FILE,
    )
    assert target.source == "in-cluster service account"


def test_in_cluster_ipv6_and_default_port():
    access = KubeAccess.parse(
        {CLUSTER: {"mode": "in-cluster"}}, env={"KUBERNETES_SERVICE_HOST": "fd00:10:96::1"}
    )

    assert configured(access, CLUSTER).api_url == "https://[fd00:10:96::1]:443"


async def test_in_cluster_from_files(tmp_path, pki):
    """The service-account token and CA from files: TLS context loads, token is sent."""
    (tmp_path / "token").write_text("sa-token-1\n")
    (tmp_path / "ca.crt").write_text(pki["cert"])
    entry = {
        "mode": "in-cluster",
        "token_file": str(tmp_path / "token"),
        "ca_file": str(tmp_path / "ca.crt"),
    }
    target = configured(KubeAccess.parse({CLUSTER: entry}, env=ENV), CLUSTER)
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"metadata": {"name": "gpu-node-7"}, "status": {}})

    context = ssl_context(target)
    assert context.verify_mode == ssl.CERT_REQUIRED
    assert context.check_hostname
    assert len(context.get_ca_certs()) == 1
    async with KubeClient(target, transport=httpx.MockTransport(handler)) as client:
        await client.get_node("gpu-node-7")
    assert seen[0].headers["Authorization"] == "Bearer sa-token-1"
    assert str(seen[0].url) == "https://10.96.0.1/api/v1/nodes/gpu-node-7"


async def test_default_transport_builds_from_the_target(tmp_path, pki):
    target = KubeTarget(api_url="https://10.96.0.1", token=None, ca_file=tmp_path / "missing.crt")

    with pytest.raises(
        KubeAccessError, match=r"TLS material does not load \(no file .*missing.crt\)"
    ):
        KubeClient(target)

    async with KubeClient(target.model_copy(update={"ca_file": None, "ca_data": pki["cert"]})):
        pass
    async with KubeClient(KubeTarget.for_url("http://127.0.0.1:8600/k8s/x", "t")):
        pass


# ------------------------------------------------------------------ TLS


def test_ssl_context_client_certificate_data_and_files(pki):
    from_data = KubeTarget(
        api_url="https://x",
        client_cert_data=pki["cert"],
        client_key_data=pki["key"],
        ca_data=pki["cert"],
    )
    from_files = KubeTarget(
        api_url="https://x", client_cert_file=pki["cert_file"], client_key_file=pki["key_file"]
    )

    assert isinstance(ssl_context(from_data), ssl.SSLContext)
    assert isinstance(ssl_context(from_files), ssl.SSLContext)


def test_ssl_context_insecure_and_bad_material(pki):
    insecure = ssl_context(KubeTarget(api_url="https://x", insecure=True))
    assert (insecure.verify_mode, insecure.check_hostname) == (ssl.CERT_NONE, False)

    bad_key = KubeTarget(
        api_url="https://x",
        source="kubeconfig k context 'p'",
        client_cert_data=pki["cert"],
        client_key_data=SECRET_TOKEN,
    )
    with pytest.raises(
        KubeAccessError, match="kubeconfig k context 'p': TLS material does not load"
    ) as caught:
        ssl_context(bad_key)
    assert SECRET_TOKEN not in str(caught.value)

    with pytest.raises(KubeAccessError):
        ssl_context(KubeTarget(api_url="https://x", ca_data="not a certificate"))


# ------------------------------------------------------------------ token rotation


def test_token_file_rewritten_in_place_is_reread(tmp_path):
    path = tmp_path / "token"
    path.write_text("tok-1")
    source = TokenSource(path=path)

    assert source.get() == "tok-1"
    path.write_text("tok-2-longer")
    os.utime(path, ns=(1, 2_000_000_000_000_000_000))

    assert source.get() == "tok-2-longer"


def test_projected_token_symlink_swap_is_reread(tmp_path):
    """The kubelet's atomic writer: `token -> ..data/token`, `..data -> ..<timestamp>`."""
    first, second = tmp_path / "..2025_11_03_08_00", tmp_path / "..2025_11_03_08_50"
    for directory, token in ((first, "projected-1"), (second, "projected-2")):
        directory.mkdir()
        (directory / "token").write_text(token)
    (tmp_path / "..data").symlink_to(first.name)
    (tmp_path / "token").symlink_to("..data/token")
    source = TokenSource(path=tmp_path / "token")
    assert source.get() == "projected-1"

    (tmp_path / "..data_tmp").symlink_to(second.name)
    (tmp_path / "..data_tmp").replace(tmp_path / "..data")

    assert source.get() == "projected-2"


def test_unchanged_token_file_is_not_reread(tmp_path, monkeypatch):
    path = tmp_path / "token"
    path.write_text("tok-1")
    source = TokenSource(path=path)
    source.get()
    reads: list[Path] = []

    def read_text(self: Path, **_: object) -> str:
        reads.append(self)
        return "x"

    monkeypatch.setattr(Path, "read_text", read_text)

    assert source.get() == "tok-1"
    assert reads == []


def test_unreadable_token_file_keeps_the_last_good_value(tmp_path):
    path = tmp_path / "token"
    path.write_text("tok-1")
    source = TokenSource(path=path)
    source.get()
    path.unlink()

    assert source.get() == "tok-1"


async def test_token_rotation_through_the_client(tmp_path):
    path = tmp_path / "token"
    path.write_text("tok-1")
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers["Authorization"])
        return httpx.Response(200, json={"metadata": {"name": "gpu-node-7"}, "status": {}})

    target = KubeTarget(api_url="http://127.0.0.1:8600/k8s/x", token_file=path)
    async with KubeClient(target, transport=httpx.MockTransport(handler)) as client:
        await client.get_node("gpu-node-7")
        path.write_text("tok-2")
        os.utime(path, ns=(1, 2_000_000_000_000_000_000))
        await client.get_node("gpu-node-7")

    assert seen == ["Bearer tok-1", "Bearer tok-2"]


async def test_401_rereads_a_token_file_whose_stat_did_not_change(tmp_path):
    path = tmp_path / "token"
    path.write_text("tok-1")
    seen: list[str] = []
    valid = {"Bearer tok-1"}

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers["Authorization"])
        if request.headers["Authorization"] not in valid:
            return httpx.Response(
                401, json={"kind": "Status", "message": "Unauthorized", "code": 401}
            )
        return httpx.Response(200, json={"metadata": {"name": "gpu-node-7"}, "status": {}})

    target = KubeTarget(api_url="http://127.0.0.1:8600/k8s/x", token_file=path)
    async with KubeClient(target, transport=httpx.MockTransport(handler)) as client:
        await client.get_node("gpu-node-7")
        before = path.stat()
        path.write_text("tok-2")  # same size, mtime put back: the stat cache cannot tell
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
        valid = {"Bearer tok-2"}  # the API server now rejects the rotated-out token
        await client.get_node("gpu-node-7")

    assert seen == ["Bearer tok-1", "Bearer tok-1", "Bearer tok-2"]


async def test_missing_token_file_is_an_auth_error_naming_the_file(tmp_path):
    target = KubeTarget(api_url="http://127.0.0.1:8600/k8s/x", token_file=tmp_path / "absent")
    requests: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        return httpx.Response(200)

    async with KubeClient(target, transport=httpx.MockTransport(answer)) as client:
        with pytest.raises(AuthError) as caught:
            await client.get_node("gpu-node-7")

    err = caught.value
    assert f"cannot read the token file {tmp_path / 'absent'}" in str(err)
    assert (err.operation, err.url) == (
        "kubectl describe node",
        "http://127.0.0.1:8600/k8s/x/api/v1/nodes/gpu-node-7",
    )
    assert requests == []


async def test_empty_token_file_is_an_auth_error(tmp_path):
    path = tmp_path / "token"
    path.write_text("\n")
    target = KubeTarget(api_url="http://127.0.0.1:8600/k8s/x", token_file=path)

    async with KubeClient(
        target, transport=httpx.MockTransport(lambda _r: httpx.Response(200))
    ) as client:
        with pytest.raises(AuthError, match="is empty"):
            await client.get_node("gpu-node-7")
