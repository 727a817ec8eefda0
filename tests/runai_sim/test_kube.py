"""The fake Kubernetes API under /k8s/{cluster}, over real HTTP (data: tests/runai_sim/data/kube.json)."""

import json
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest

from bot.app.backends import ASGI_BASE_URL
from diagnosis.http.transport import network_transport
from runai_sim import Scenario, ScenarioError, Simulator, serve_in_thread
from runai_sim.kube import kube_base_url
from runai_sim.scenario_parts import DEFAULT_KUBE_TOKEN
from tests.runai_sim.sim_helpers import BASIC, CLUSTER, DATA, asgi_client, fetch_token

KUBE = DATA / "kube.json"
STAGING = "0c4e8b1a-2d3f-4a5b-9c6d-7e8f9a0b1c2d"  # a scenario cluster without a Kubernetes view
AUTH = {"Authorization": f"Bearer {DEFAULT_KUBE_TOKEN}"}
BERT_LOG = "/api/v1/namespaces/runai-nlp/pods/bert-ft-0-0/log"
WORKER_LOG = "/api/v1/namespaces/runai-vision/pods/vision-ddp-worker-0/log"
BERT_PREVIOUS = (
    "Loading checkpoint shards: 100%\nEpoch 1/3 step 100 loss=2.31\n"
    "Epoch 1/3 step 200 loss=1.97\nEpoch 1/3 step 300 loss=1.85\n"
)
CORE_EVENTS = "/api/v1/namespaces/{ns}/events"
V1_EVENTS = "/apis/events.k8s.io/v1/namespaces/{ns}/events"


def status(code: int, reason: str, message: str, **extra: object) -> dict:
    body = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure"}
    return {**body, "message": message, "reason": reason, **extra, "code": code}


def item_names(body: dict) -> list[str]:
    return [item["metadata"]["name"] for item in body["items"]]


@pytest.fixture(scope="module")
def kube_sim() -> Simulator:
    return Simulator(Scenario.load(KUBE))


@pytest.fixture(scope="module")
def kube_root(kube_sim: Simulator) -> Iterator[str]:
    """One server for the read-only tests; yields its base URL."""
    with serve_in_thread(kube_sim) as url:
        yield url


@pytest.fixture
async def kube(kube_root: str) -> AsyncIterator[httpx.AsyncClient]:
    """An authenticated client whose base URL is the prod cluster's Kubernetes API."""
    base_url = kube_base_url(kube_root, CLUSTER)
    async with httpx.AsyncClient(
        base_url=base_url, headers=AUTH, transport=network_transport()
    ) as c:
        yield c


@pytest.fixture
async def fresh() -> AsyncIterator[tuple[Simulator, httpx.AsyncClient]]:
    """A private simulator (for faults and the request log) and an authenticated client."""
    sim = Simulator(Scenario.load(KUBE))
    async with asgi_client(sim, kube_base_url(ASGI_BASE_URL, CLUSTER), headers=AUTH) as client:
        yield sim, client


# ---------------------------------------------------------------------- objects
def test_public_helpers(kube_sim):
    assert kube_sim.kube_token == DEFAULT_KUBE_TOKEN
    assert kube_sim.kube_clusters == [CLUSTER]
    assert kube_base_url("http://127.0.0.1:8080/", "abc") == "http://127.0.0.1:8080/k8s/abc"


async def test_version(kube):
    response = await kube.get("/version")
    assert response.json() == {"major": "1", "minor": "30", "gitVersion": "v1.30.4"}


async def test_get_pod_serves_the_object_as_written(kube, kube_sim):
    response = await kube.get("/api/v1/namespaces/runai-nlp/pods/bert-ft-0-0")
    assert response.status_code == 200
    assert response.json() == kube_sim.scenario.kubernetes.pods[0]
    last = response.json()["status"]["containerStatuses"][0]["lastState"]["terminated"]
    assert (last["reason"], last["exitCode"]) == ("OOMKilled", 137)


@pytest.mark.parametrize(
    ("path", "kind", "name"),
    [
        ("/api/v1/namespaces/runai-nlp/pods/nope", "pods", "nope"),
        ("/api/v1/namespaces/runai-vision/pods/bert-ft-0-0", "pods", "bert-ft-0-0"),
        ("/api/v1/namespaces/runai-nlp/pods/nope/log", "pods", "nope"),
        ("/api/v1/nodes/dgx-h100-99", "nodes", "dgx-h100-99"),
    ],
)
async def test_missing_objects_are_404_status(kube, path, kind, name):
    response = await kube.get(path)
    assert response.status_code == 404
    details = {"name": name, "kind": kind}
    assert response.json() == status(404, "NotFound", f'{kind} "{name}" not found', details=details)


@pytest.mark.parametrize(
    ("path", "params", "expected"),
    [
        (
            "/api/v1/namespaces/runai-vision/pods",
            {},
            ["vision-ddp-worker-0", "vision-ddp-launcher"],
        ),
        ("/api/v1/namespaces/default/pods", {}, []),
        ("/api/v1/pods", {}, ["bert-ft-0-0", "vision-ddp-worker-0", "vision-ddp-launcher"]),
        (
            "/api/v1/pods",
            {"labelSelector": "release=vision-ddp,role==worker"},
            ["vision-ddp-worker-0"],
        ),
        ("/api/v1/pods", {"labelSelector": "release!=vision-ddp"}, ["bert-ft-0-0"]),
        ("/api/v1/pods", {"labelSelector": "project"}, ["bert-ft-0-0"]),
        ("/api/v1/pods", {"labelSelector": "!role"}, ["bert-ft-0-0"]),
        ("/api/v1/pods", {"labelSelector": "app=other"}, []),
        (
            "/api/v1/namespaces/runai-nlp/pods",
            {"fieldSelector": "metadata.name=bert-ft-0-0"},
            ["bert-ft-0-0"],
        ),
        (
            "/api/v1/namespaces/runai-nlp/pods",
            {"fieldSelector": "metadata.name=vision-ddp-launcher"},
            [],
        ),
        ("/api/v1/pods", {"fieldSelector": "spec.nodeName="}, ["vision-ddp-launcher"]),
        (
            "/api/v1/pods",
            {"fieldSelector": "status.phase!=Running,metadata.namespace=runai-vision"},
            ["vision-ddp-worker-0", "vision-ddp-launcher"],
        ),
        (
            "/api/v1/pods",
            {"labelSelector": "app=runai", "fieldSelector": "status.phase==Failed"},
            ["vision-ddp-worker-0"],
        ),
    ],
)
async def test_pod_list_with_selectors(kube, path, params, expected):
    response = await kube.get(path, params=params)
    assert response.status_code == 200
    body = response.json()
    assert (body["kind"], body["apiVersion"], body["metadata"]) == (
        "PodList",
        "v1",
        {"resourceVersion": "1"},
    )
    assert item_names(body) == expected


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"fieldSelector": "spec.containers=x"}, "field label not supported: spec.containers"),
        (
            {"fieldSelector": "metadata.name"},
            "invalid field selector: 'metadata.name' needs = or !=",
        ),
        ({"labelSelector": "release in (bert-ft)"}, "unable to parse requirement"),
        ({"limit": "ten"}, "limit: invalid value 'ten': not an integer"),
        ({"limit": "1", "continue": "not-a-token"}, "continue key is not valid"),
    ],
)
async def test_bad_list_parameters_are_400(kube, params, message):
    response = await kube.get("/api/v1/pods", params=params)
    assert response.status_code == 400
    assert response.json()["reason"] == "BadRequest"
    assert response.json()["message"].startswith(message)


async def test_nodes(kube, kube_sim):
    node = await kube.get("/api/v1/nodes/dgx-a100-02")
    assert node.json() == kube_sim.scenario.kubernetes.nodes[1]
    assert node.json()["status"]["conditions"][0]["status"] == "Unknown"
    listed = (await kube.get("/api/v1/nodes")).json()
    assert (listed["kind"], item_names(listed)) == ("NodeList", ["dgx-a100-01", "dgx-a100-02"])
    for params, expected in [
        ({"fieldSelector": "metadata.name=dgx-a100-01"}, ["dgx-a100-01"]),
        ({"fieldSelector": "spec.unschedulable=true"}, ["dgx-a100-02"]),
        ({"labelSelector": "node-role.kubernetes.io/runai-gpu-worker"}, ["dgx-a100-01"]),
    ]:
        assert item_names((await kube.get("/api/v1/nodes", params=params)).json()) == expected


# ---------------------------------------------------------------------- logs
TRAINER = (
    "[rank0] init process group\n[rank0] NCCL WARN Net : Connection closed by remote peer\n"
    "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1970, remote process exited or there "
    "was a network error\n"
)


@pytest.mark.parametrize(
    ("path", "params", "expected"),
    [
        (BERT_LOG, {}, ""),  # the only container is the default; no current text -> empty body
        (BERT_LOG, {"container": "bert-ft", "previous": "false"}, ""),
        (BERT_LOG, {"previous": "true"}, BERT_PREVIOUS),
        (BERT_LOG, {"previous": "1", "timestamps": "true"}, BERT_PREVIOUS),
        (
            BERT_LOG,
            {"previous": "true", "tailLines": "2"},
            "Epoch 1/3 step 200 loss=1.97\nEpoch 1/3 step 300 loss=1.85\n",
        ),
        (BERT_LOG, {"previous": "true", "tailLines": "0"}, ""),
        (BERT_LOG, {"previous": "true", "tailLines": "99"}, BERT_PREVIOUS),
        (BERT_LOG, {"previous": "true", "limitBytes": "7"}, "Loading"),
        (BERT_LOG, {"previous": "true", "tailLines": "1", "limitBytes": "7"}, "Epoch 1"),
        (WORKER_LOG, {"container": "trainer"}, TRAINER),
        (
            WORKER_LOG,
            {"container": "trainer", "tailLines": "1"},
            TRAINER.splitlines(keepends=True)[-1],
        ),
        (
            WORKER_LOG,
            {"container": "fetch-data"},
            "downloading s3://vision/imagenet-shard-0007.tar\ndone\n",
        ),
        (WORKER_LOG, {"container": "metrics-sidecar"}, ""),  # no `logs` entry at all
    ],
)
async def test_log_selection(kube, path, params, expected):
    response = await kube.get(path, params=params)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain")
    assert response.text == expected


@pytest.mark.parametrize(
    ("path", "params", "code", "message"),
    [
        (
            WORKER_LOG,
            {},
            400,
            "a container name must be specified for pod vision-ddp-worker-0, choose one of: [trainer metrics-sidecar] or one of the init containers: [fetch-data]",
        ),
        (
            WORKER_LOG,
            {"container": "nope"},
            400,
            "container nope is not valid for pod vision-ddp-worker-0",
        ),
        (
            WORKER_LOG,
            {"container": "trainer", "previous": "true"},
            400,
            'previous terminated container "trainer" in pod "vision-ddp-worker-0" not found',
        ),
        (
            WORKER_LOG,
            {"container": "metrics-sidecar", "previous": "true"},
            400,
            'previous terminated container "metrics-sidecar" in pod "vision-ddp-worker-0" not found',
        ),
        (BERT_LOG, {"previous": "maybe"}, 400, "previous: invalid value 'maybe': not a boolean"),
        (BERT_LOG, {"tailLines": "x"}, 400, "tailLines: invalid value 'x': not an integer"),
        (
            BERT_LOG,
            {"tailLines": "-1"},
            422,
            "PodLogOptions is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0",
        ),
        (
            BERT_LOG,
            {"limitBytes": "0"},
            422,
            "PodLogOptions is invalid: limitBytes: Invalid value: 0: must be greater than 0",
        ),
    ],
)
async def test_log_errors(kube, path, params, code, message):
    response = await kube.get(path, params=params)
    assert response.status_code == code
    reason = "BadRequest" if code == 400 else "Invalid"
    assert response.json() == status(code, reason, message)


# ---------------------------------------------------------------------- events
@pytest.mark.parametrize("group", ["core", "events.k8s.io"])
@pytest.mark.parametrize(
    ("ns", "selector", "expected"),
    [
        (
            "runai-nlp",
            "",
            ["bert-ft-0-0.1801a", "bert-ft-0-0.1801b", "bert-ft-0-0.1801c", "bert-ft-0-1.1801d"],
        ),
        (
            "runai-nlp",
            "{ref}.name=bert-ft-0-0",
            ["bert-ft-0-0.1801a", "bert-ft-0-0.1801b", "bert-ft-0-0.1801c"],
        ),
        (
            "runai-nlp",
            "{ref}.kind=Pod,{ref}.name=bert-ft-0-0,{ref}.namespace=runai-nlp,type=Warning",
            ["bert-ft-0-0.1801c"],
        ),
        ("runai-nlp", "{ref}.name!=bert-ft-0-0", ["bert-ft-0-1.1801d"]),
        (
            "runai-nlp",
            "{ref}.uid=9a1b2c3d-0000-4000-8000-000000000001,reason=BackOff",
            ["bert-ft-0-0.1801c"],
        ),
        ("runai-vision", "{ref}.name=vision-ddp-launcher", ["vision-ddp-launcher.1802b"]),
        ("runai-vision", "{ref}.name=bert-ft-0-0", []),
        ("default", "{ref}.kind=Node,{ref}.name=dgx-a100-02", ["dgx-a100-02.1803a"]),
        ("default", "{ref}.namespace=", ["dgx-a100-02.1803a"]),
    ],
)
async def test_event_field_selectors_in_both_groups(kube, group, ns, selector, expected):
    core = group == "core"
    path = (CORE_EVENTS if core else V1_EVENTS).format(ns=ns)
    fields = selector.format(ref="involvedObject" if core else "regarding")
    response = await kube.get(path, params={"fieldSelector": fields} if fields else {})
    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["kind"], body["apiVersion"]) == ("EventList", "v1" if core else "events.k8s.io/v1")
    assert item_names(body) == expected


@pytest.mark.parametrize(
    ("path", "selector"),
    [
        (CORE_EVENTS, "regarding.name=bert-ft-0-0"),
        (V1_EVENTS, "involvedObject.name=bert-ft-0-0"),
    ],
)
async def test_event_field_labels_belong_to_their_group(kube, path, selector):
    response = await kube.get(path.format(ns="runai-nlp"), params={"fieldSelector": selector})
    assert response.status_code == 400
    assert response.json()["message"] == f"field label not supported: {selector.split('=')[0]}"


async def test_events_k8s_io_shape(kube, kube_sim):
    core = kube_sim.scenario.kubernetes.events
    body = (await kube.get(V1_EVENTS.format(ns="runai-nlp"))).json()
    assert body["items"][2] == {
        "metadata": core[2]["metadata"],
        "eventTime": None,
        "reportingController": "kubelet",
        "reportingInstance": "dgx-a100-01",
        "reason": "BackOff",
        "regarding": core[2]["involvedObject"],
        "note": core[2]["message"],
        "type": "Warning",
        "deprecatedSource": {"component": "kubelet", "host": "dgx-a100-01"},
        "deprecatedFirstTimestamp": "2025-11-03T09:05:00Z",
        "deprecatedLastTimestamp": "2025-11-03T09:38:00Z",
        "deprecatedCount": 12,
    }
    node_event = (await kube.get(V1_EVENTS.format(ns="default"))).json()["items"][0]
    assert node_event["eventTime"] == "2025-11-03T09:25:00.123456Z"
    assert node_event["action"] == "NodeNotReady"
    assert "deprecatedCount" not in node_event


@pytest.mark.parametrize("template", [CORE_EVENTS, V1_EVENTS, "/api/v1/events", "/api/v1/pods"])
async def test_pagination_with_continue(kube, template):
    path = template.format(ns="runai-nlp")
    everything = item_names((await kube.get(path)).json())
    pages, token = [], None
    while True:
        params = {"limit": "3", **({"continue": token} if token else {})}
        meta = (body := (await kube.get(path, params=params)).json())["metadata"]
        pages.append(item_names(body))
        token = meta.get("continue")
        remaining = len(everything) - sum(map(len, pages))
        assert meta.get("remainingItemCount") == (remaining or None)
        if token is None:
            break
    assert [name for page in pages for name in page] == everything
    assert all(len(page) == 3 for page in pages[:-1])
    assert 1 <= len(pages[-1]) <= 3


async def test_pagination_applies_after_the_selector(kube):
    params = {"fieldSelector": "involvedObject.kind=Pod", "limit": "4"}
    first = (await kube.get("/api/v1/events", params=params)).json()
    assert first["metadata"]["remainingItemCount"] == 2
    params["continue"] = first["metadata"]["continue"]
    second = (await kube.get("/api/v1/events", params=params)).json()
    assert item_names(second) == ["vision-ddp-worker-0.1802a", "vision-ddp-launcher.1802b"]
    assert "continue" not in second["metadata"]


# ---------------------------------------------------------------------- access
@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": "Bearer wrong"},
        {"Authorization": f"Basic {DEFAULT_KUBE_TOKEN}"},
        {"Authorization": "Bearer"},
        {"Authorization": "Bearer d\u00e9mo-kube-token".encode()},  # non-ASCII: no crash
    ],
)
async def test_requests_without_the_kube_token_are_401(kube_root, headers):
    async with httpx.AsyncClient(base_url=kube_base_url(kube_root, CLUSTER)) as anon:
        for path in ["/version", "/api/v1/namespaces/runai-nlp/pods/bert-ft-0-0", "/nope"]:
            response = await anon.get(path, headers=headers)
            assert response.status_code == 401
            assert response.json() == status(401, "Unauthorized", "Unauthorized")


async def test_run_ai_and_kubernetes_tokens_are_not_interchangeable(kube_root):
    async with httpx.AsyncClient(base_url=kube_root) as client:
        runai = {"Authorization": f"Bearer {await fetch_token(client)}"}
        assert (await client.get(f"/k8s/{CLUSTER}/version", headers=runai)).status_code == 401
        assert (await client.get("/api/v1/clusters", headers=AUTH)).status_code == 401
        assert (await client.get("/api/v1/clusters", headers=runai)).status_code == 200


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE"])
@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/namespaces/runai-nlp/pods/bert-ft-0-0",
        "/api/v1/namespaces/runai-nlp/pods",
        "/api/v1/nodes/dgx-a100-01",
    ],
)
async def test_writes_are_405(kube, method, path):
    response = await kube.request(method, path, json={"kind": "DeleteOptions"})
    assert response.status_code == 405
    message = "the server does not allow this method on the requested resource"
    assert response.json() == status(405, "MethodNotAllowed", message)


@pytest.mark.parametrize(
    ("cluster", "path", "message"),
    [
        ("no-such-cluster", "/version", 'cluster "no-such-cluster" not found'),
        (STAGING, "/version", f'cluster "{STAGING}" not found'),  # not in kubernetes.clusters
        (CLUSTER, "/apis/batch/v1/jobs", "the server could not find the requested resource"),
        (
            CLUSTER,
            "/api/v1/namespaces/runai-nlp/configmaps",
            "the server could not find the requested resource",
        ),
    ],
)
async def test_unknown_clusters_and_paths_are_404(kube_root, cluster, path, message):
    async with httpx.AsyncClient(base_url=kube_base_url(kube_root, cluster), headers=AUTH) as c:
        response = await c.get(path)
    assert response.status_code == 404
    assert response.json() == status(404, "NotFound", message)


async def test_a_scenario_without_kubernetes_serves_no_cluster(sim):
    assert sim.kube_token is None
    assert sim.kube_clusters == []
    async with asgi_client(sim, kube_base_url(ASGI_BASE_URL, CLUSTER), headers=AUTH) as c:
        response = await c.get("/version")
    assert response.status_code == 404
    assert response.json()["reason"] == "NotFound"


# ---------------------------------------------------------------------- faults and request log
async def test_status_fault_on_a_kube_path_is_a_status_body(fresh):
    sim, kube = fresh
    sim.add_fault(
        {
            "path": r"/k8s/[^/]+/api/v1/namespaces/[^/]+/pods/[^/]+/log",
            "status": 503,
            "count": 1,
            "headers": {"Retry-After": "2"},
        }
    )
    response = await kube.get(BERT_LOG, params={"previous": "true"})
    assert response.status_code == 503
    assert response.headers["retry-after"] == "2"
    assert response.json() == status(503, "ServiceUnavailable", "Injected fault.")
    assert (await kube.get(BERT_LOG, params={"previous": "true"})).text == BERT_PREVIOUS
    # The regex must match the whole path: the pod itself is not affected.
    assert (await kube.get("/api/v1/namespaces/runai-nlp/pods/bert-ft-0-0")).status_code == 200


@pytest.mark.parametrize(
    ("rule", "code", "content"),
    [
        ({"body": "malformed"}, 200, None),
        (
            {"status": 500, "body": {"kind": "Status", "code": 500}},
            500,
            b'{"kind": "Status", "code": 500}',
        ),
        ({"status": 502, "body": "empty"}, 502, b""),
    ],
)
async def test_body_faults_on_kube_paths(fresh, rule, code, content):
    sim, kube = fresh
    sim.add_fault({"path": f"/k8s/{CLUSTER}/api/v1/nodes", **rule})
    response = await kube.get("/api/v1/nodes")
    assert response.status_code == code
    if content is None:
        with pytest.raises(json.JSONDecodeError):
            json.loads(response.content)
    else:
        assert response.content == content


async def test_latency_fault_then_served_normally(fresh):
    sim, kube = fresh
    sim.add_fault(
        {"path": f"/k8s/{CLUSTER}/version", "latency_ms": 50, "headers": {"X-Injected": "yes"}}
    )
    response = await kube.get("/version")
    assert response.status_code == 200
    assert response.headers["x-injected"] == "yes"


async def test_faults_apply_before_the_kube_token_check(fresh):
    sim, kube = fresh
    sim.add_fault({"path": f"/k8s/{CLUSTER}/version", "status": 429, "count": 1})
    response = await kube.get("/version", headers={"Authorization": "Bearer wrong"})
    assert response.json() == status(429, "TooManyRequests", "Injected fault.")


async def test_request_log_records_kube_requests(fresh):
    sim, kube = fresh
    await kube.get(BERT_LOG, params={"previous": "true", "tailLines": "2"})
    await kube.get("/version", headers={"Authorization": "Bearer wrong"})
    await kube.delete("/api/v1/namespaces/runai-nlp/pods/bert-ft-0-0")
    await kube.get(
        CORE_EVENTS.format(ns="runai-nlp"),
        params={"fieldSelector": "involvedObject.name=bert-ft-0-0"},
    )
    prefix = f"/k8s/{CLUSTER}"
    assert [(r.method, r.path, r.status) for r in sim.requests] == [
        ("GET", prefix + BERT_LOG, 200),
        ("GET", prefix + "/version", 401),
        ("DELETE", prefix + "/api/v1/namespaces/runai-nlp/pods/bert-ft-0-0", 405),
        ("GET", prefix + "/api/v1/namespaces/runai-nlp/events", 200),
    ]
    assert sim.requests[0].query == {"previous": ["true"], "tailLines": ["2"]}
    assert sim.requests[3].query == {"fieldSelector": ["involvedObject.name=bert-ft-0-0"]}
    assert all(r.headers["authorization"] == "Bearer <redacted>" for r in sim.requests)
    assert all(DEFAULT_KUBE_TOKEN not in json.dumps(r.headers) for r in sim.requests)


# ---------------------------------------------------------------------- scenario key
def kube_scenario(**kubernetes: object) -> dict:
    clusters = [{"uuid": "c1"}, {"uuid": "c2"}]
    return {
        "name": "t",
        "now": "2025-11-03T09:40:00Z",
        "clusters": clusters,
        "kubernetes": kubernetes,
    }


POD = {"metadata": {"name": "p", "namespace": "ns"}, "spec": {"containers": [{"name": "main"}]}}


def test_kubernetes_key_defaults():
    sim = Simulator(Scenario.parse(kube_scenario(_comment="ignored")))
    assert sim.kube_token == DEFAULT_KUBE_TOKEN
    assert sim.kube_clusters == ["c1", "c2"]
    view = Simulator(Scenario.parse(kube_scenario(token="t0k", clusters=["c2"], pods=[POD])))
    assert (view.kube_token, view.kube_clusters) == ("t0k", ["c2"])


async def test_scenario_token_replaces_the_default():
    sim = Simulator(Scenario.parse(kube_scenario(token="t0k", pods=[POD])))
    async with asgi_client(sim, kube_base_url(ASGI_BASE_URL, "c2")) as c:
        assert (await c.get("/version", headers=AUTH)).status_code == 401
        pod = await c.get("/api/v1/namespaces/ns/pods/p", headers={"Authorization": "Bearer t0k"})
        assert pod.json() == {"kind": "Pod", "apiVersion": "v1", **POD}  # kind added when absent


@pytest.mark.parametrize(
    ("kubernetes", "where"),
    [
        ({"pod": []}, "kubernetes.pod"),
        ({"token": ""}, "kubernetes.token"),
        ({"clusters": ["c3"]}, "kubernetes.clusters: 'c3'"),
        (
            {"pods": [{"metadata": {"name": "p"}}]},
            "kubernetes.pods: Value error, [0].metadata.namespace is missing",
        ),
        ({"pods": [{"spec": {}}]}, "[0].metadata is missing"),
        (
            {"events": [{"metadata": {"namespace": "ns"}}]},
            "kubernetes.events: Value error, [0].metadata.name is missing",
        ),
        (
            {"nodes": [{"metadata": {}}]},
            "kubernetes.nodes: Value error, [0].metadata.name is missing",
        ),
        (
            {"pods": [POD], "logs": {"ns/p/other": {"current": "x"}}},
            "logs.ns/p/other: no such container",
        ),
        ({"pods": [POD], "logs": {"ns/p": {"current": "x"}}}, "logs.ns/p: no such container"),
        ({"pods": [POD], "logs": {"ns/p/main": {"now": "x"}}}, "kubernetes.logs.ns/p/main.now"),
        (
            {"pods": [POD], "logs": {"ns/p/main": {"current": 3}}},
            "kubernetes.logs.ns/p/main.current",
        ),
    ],
)
def test_invalid_kubernetes_keys_name_the_key(kubernetes, where):
    with pytest.raises(ScenarioError) as caught:
        Scenario.parse(kube_scenario(**kubernetes), source="k.json")
    assert str(caught.value).startswith("k.json: invalid scenario")
    assert where in str(caught.value)


def test_the_basic_scenario_still_has_no_kubernetes_view():
    assert Scenario.load(BASIC).kubernetes is None
    assert Scenario.load(KUBE).schema_problems() == []
