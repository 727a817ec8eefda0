"""`KubeClient` against a fake API server: endpoints, models, events, logs, errors, read-only."""

from __future__ import annotations

import copy
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
from structlog.testing import capture_logs

from diagnosis.errors import (
    AuthError,
    InvalidRequest,
    NotFound,
    UpstreamTimeout,
    UpstreamUnavailable,
)
from diagnosis.http.responses import error_message
from diagnosis.http.transport import ReadOnlyViolation
from diagnosis.kube.client import KubeClient
from diagnosis.kube.config import KubeTarget
from diagnosis.kube.event_client import MAX_PAGES

BASE = "https://10.96.0.1"
TOKEN = "eyJhbGciOiJSUzI1NiIsImtpZCI6Ik5HZ3Y0In0.sa-token.sig"
NS, POD, NODE = "runai-ml-team", "train-42-0-0", "gpu-node-7"
POD_PATH = f"/api/v1/namespaces/{NS}/pods/{POD}"
EVENTS_PATH = f"/api/v1/namespaces/{NS}/events"
EVENTS_V1_PATH = f"/apis/events.k8s.io/v1/namespaces/{NS}/events"
LOG_PATH = f"{POD_PATH}/log"
NODE_PATH = f"/api/v1/nodes/{NODE}"
UID = "6f1c2a0e-6a4b-4d53-9d8e-2f4c9b1e7a10"

Route = Callable[[httpx.Request], httpx.Response] | httpx.Response | list[httpx.Response]


def status(code: int, message: str, reason: str) -> httpx.Response:
    """A Kubernetes `Status` failure body, as the API server sends it."""
    body = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": message, "reason": reason, "code": code}  # fmt: skip
    return httpx.Response(code, json=body)


FORBIDDEN_EVENTS = status(
    403,
    'events is forbidden: User "system:serviceaccount:runai-why:diagnoser" cannot list resource '
    f'"events" in API group "" in the namespace "{NS}"',
    "Forbidden",
)

OOM_POD: dict[str, Any] = {
    "kind": "Pod",
    "apiVersion": "v1",
    "metadata": {
        "name": POD,
        "namespace": NS,
        "uid": UID,
        "resourceVersion": "918273",
        "creationTimestamp": "2025-11-03T08:00:00Z",
        "labels": {"workloadName": "train-42", "project": "ml-team"},
    },
    "spec": {
        "nodeName": NODE,
        "restartPolicy": "Never",
        "schedulerName": "runai-scheduler",
        "containers": [
            {
                "name": "trainer",
                "image": "nvcr.io/nvidia/pytorch:24.08-py3",
                "resources": {
                    "limits": {"memory": "32Gi", "nvidia.com/gpu": "1"},
                    "requests": {"cpu": "4", "memory": "32Gi"},
                },
            }
        ],
        "initContainers": [{"name": "fetch-data", "image": "busybox:1.36"}],
        "volumes": [
            {"name": "data", "persistentVolumeClaim": {"claimName": "imagenet-pvc"}},
            {"name": "creds", "secret": {"secretName": "s3-creds", "defaultMode": 420}},
            {"name": "cfg", "configMap": {"name": "train-cfg", "defaultMode": 420}},
            {
                "name": "kube-api-access-x7k2p",
                "projected": {
                    "sources": [
                        {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}}
                    ]
                },
            },
        ],
    },
    "status": {
        "phase": "Failed",
        "hostIP": "10.0.3.17",
        "podIP": "10.244.5.23",
        "startTime": "2025-11-03T08:00:02Z",
        "qosClass": "Guaranteed",
        "conditions": [
            {
                "type": "Initialized",
                "status": "True",
                "lastProbeTime": None,
                "lastTransitionTime": "2025-11-03T08:00:09Z",
            },
            {
                "type": "Ready",
                "status": "False",
                "lastProbeTime": None,
                "lastTransitionTime": "2025-11-03T08:41:07Z",
                "reason": "PodFailed",
            },
            {
                "type": "PodScheduled",
                "status": "True",
                "lastProbeTime": None,
                "lastTransitionTime": "2025-11-03T08:00:00Z",
            },
        ],
        "initContainerStatuses": [
            {
                "name": "fetch-data",
                "image": "docker.io/library/busybox:1.36",
                "imageID": "docker.io/library/busybox@sha256:768e5c6f",
                "ready": True,
                "restartCount": 0,
                "started": False,
                "state": {
                    "terminated": {
                        "exitCode": 0,
                        "reason": "Completed",
                        "startedAt": "2025-11-03T08:00:03Z",
                        "finishedAt": "2025-11-03T08:00:08Z",
                        "containerID": "containerd://4b1f",
                    }
                },
                "lastState": {},
            }
        ],
        "containerStatuses": [
            {
                "name": "trainer",
                "image": "nvcr.io/nvidia/pytorch:24.08-py3",
                "imageID": "nvcr.io/nvidia/pytorch@sha256:9a1d",
                "ready": False,
                "restartCount": 0,
                "started": False,
                "state": {
                    "terminated": {
                        "exitCode": 137,
                        "reason": "OOMKilled",
                        "startedAt": "2025-11-03T08:00:10Z",
                        "finishedAt": "2025-11-03T08:41:06Z",
                        "containerID": "containerd://a8c3e1",
                    }
                },
                "lastState": {},
            }
        ],
    },
}


def crashloop_pod() -> dict[str, Any]:
    pod = copy.deepcopy(OOM_POD)
    pod["spec"]["restartPolicy"] = "Always"
    pod["status"]["phase"] = "Running"
    pod["status"]["containerStatuses"] = [{
        "name": "trainer", "image": "nvcr.io/nvidia/pytorch:24.08-py3", "ready": False, "restartCount": 6, "started": False,
        "state": {"waiting": {"reason": "CrashLoopBackOff", "message": f"back-off 5m0s restarting failed container=trainer pod={POD}_{NS}({UID})"}},
        "lastState": {"terminated": {"exitCode": 1, "reason": "Error", "startedAt": "2025-11-03T08:30:01Z", "finishedAt": "2025-11-03T08:30:04Z", "containerID": "containerd://77b0"}},
    }]  # fmt: skip
    return pod


def image_pull_pod() -> dict[str, Any]:
    pod = copy.deepcopy(OOM_POD)
    pod["status"] = {
        "phase": "Pending",
        "conditions": [{"type": "ContainersReady", "status": "False", "reason": "ContainersNotReady",
                        "message": "containers with unready status: [trainer]", "lastTransitionTime": "2025-11-03T08:00:09Z"}],
        "containerStatuses": [{
            "name": "trainer", "image": "nvcr.io/nvidia/pytorch:24.99-py3", "imageID": "", "ready": False, "restartCount": 0, "started": False,
            "state": {"waiting": {"reason": "ImagePullBackOff", "message": 'Back-off pulling image "nvcr.io/nvidia/pytorch:24.99-py3"'}},
            "lastState": {},
        }],
        "initContainerStatuses": None,
    }  # fmt: skip
    return pod


def core_event(reason: str, message: str, **extra: Any) -> dict[str, Any]:
    """A core/v1 Event as the kubelet records it (legacy timestamps and `source`)."""
    return {
        "metadata": {"name": f"{POD}.187a{len(message):04x}", "namespace": NS, "uid": "e-1",
                     "resourceVersion": "4711", "creationTimestamp": "2025-11-03T08:02:00Z"},
        "involvedObject": {"kind": "Pod", "namespace": NS, "name": POD, "uid": UID, "apiVersion": "v1",
                           "resourceVersion": "918000", "fieldPath": "spec.containers{trainer}"},
        "reason": reason, "message": message,
        "source": {"component": "kubelet", "host": NODE},
        "firstTimestamp": "2025-11-03T08:02:00Z", "lastTimestamp": "2025-11-03T08:20:00Z",
        "count": 14, "type": "Warning", "eventTime": None,
        "reportingComponent": "kubelet", "reportingInstance": NODE,
        **extra,
    }  # fmt: skip


SCHEDULER_EVENT = {  # written through events.k8s.io/v1, read back through core/v1
    "metadata": {"name": f"{POD}.187a0001", "namespace": NS, "creationTimestamp": "2025-11-03T07:59:59Z"},
    "involvedObject": {"kind": "Pod", "namespace": NS, "name": POD, "uid": UID},
    "reason": "FailedScheduling",
    "message": "0/8 nodes are available: 8 Insufficient nvidia.com/gpu. preemption: 0/8 nodes are available: 8 No preemption victims found for incoming pod.",
    "source": {},
    "firstTimestamp": None,
    "lastTimestamp": None,
    "type": "Warning",
    "eventTime": "2025-11-03T07:59:59.812345Z",
    "series": {"count": 3, "lastObservedTime": "2025-11-03T08:00:00.100000Z"},
    "action": "Scheduling",
    "reportingComponent": "default-scheduler",
    "reportingInstance": "default-scheduler-control-plane-1",
}  # fmt: skip

V1_EVENT = {
    "metadata": {"name": f"{POD}.187b0002", "namespace": NS, "creationTimestamp": "2025-11-03T08:00:12Z"},
    "eventTime": None,
    "reportingController": "kubelet",
    "reportingInstance": NODE,
    "action": "",
    "reason": "Failed",
    "regarding": {"kind": "Pod", "namespace": NS, "name": POD, "uid": UID, "apiVersion": "v1", "fieldPath": "spec.containers{trainer}"},
    "note": 'Failed to pull image "nvcr.io/nvidia/pytorch:24.99-py3": rpc error: code = NotFound desc = failed to pull and unpack image "nvcr.io/nvidia/pytorch:24.99-py3": failed to resolve reference "nvcr.io/nvidia/pytorch:24.99-py3": nvcr.io/nvidia/pytorch:24.99-py3: not found',
    "type": "Warning",
    "deprecatedSource": {"component": "kubelet", "host": NODE},
    "deprecatedFirstTimestamp": "2025-11-03T08:00:12Z",
    "deprecatedLastTimestamp": "2025-11-03T08:04:40Z",
    "deprecatedCount": 4,
}  # fmt: skip

NOT_READY_NODE = {
    "kind": "Node",
    "apiVersion": "v1",
    "metadata": {"name": NODE, "labels": {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB"}},
    "spec": {
        "podCIDR": "10.244.5.0/24",
        "taints": [
            {"key": "node.kubernetes.io/unreachable", "effect": "NoSchedule", "timeAdded": "2025-11-03T08:40:12Z"},
            {"key": "node.kubernetes.io/unreachable", "effect": "NoExecute", "timeAdded": "2025-11-03T08:40:17Z"},
        ],
    },
    "status": {
        "conditions": [
            {"type": "MemoryPressure", "status": "Unknown", "lastHeartbeatTime": "2025-11-03T08:39:20Z", "lastTransitionTime": "2025-11-03T08:40:12Z",
             "reason": "NodeStatusUnknown", "message": "Kubelet stopped posting node status."},
            {"type": "Ready", "status": "Unknown", "lastHeartbeatTime": "2025-11-03T08:39:20Z", "lastTransitionTime": "2025-11-03T08:40:12Z",
             "reason": "NodeStatusUnknown", "message": "Kubelet stopped posting node status."},
        ],
        "capacity": {"nvidia.com/gpu": "8", "memory": "1056561500Ki"},
    },
}  # fmt: skip


def event_list(items: list[dict[str, Any]], cont: str | None = None, *, v1: bool = False) -> dict:
    meta: dict[str, Any] = {"resourceVersion": "99120"}
    if cont is not None:
        meta["continue"] = cont
    api = "events.k8s.io/v1" if v1 else "v1"
    return {"kind": "EventList", "apiVersion": api, "metadata": meta, "items": items}


class FakeKube:
    """Routes on path, records every request, 404s with a Kubernetes `Status` otherwise."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []
        self.routes: dict[str, Route] = {}

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        route = self.routes.get(request.url.path)
        if route is None:
            return status(404, "the server could not find the requested resource", "NotFound")
        if isinstance(route, httpx.Response):
            return route
        if isinstance(route, list):
            return route.pop(0) if len(route) > 1 else route[0]
        return route(request)

    def paths(self) -> list[str]:
        return [r.url.path for r in self.requests]


@pytest.fixture
def fake() -> FakeKube:
    return FakeKube()


@pytest.fixture
def sleeps() -> list[float]:
    return []


@pytest.fixture
async def make_client(fake, sleeps):
    made: list[KubeClient] = []

    async def record(delay: float) -> None:
        sleeps.append(delay)

    def build(api_url: str = BASE, token: str | None = TOKEN, **target: Any) -> KubeClient:
        kube_target = KubeTarget.for_url(api_url, token).model_copy(update=target)
        client = KubeClient(kube_target, transport=httpx.MockTransport(fake), sleep=record)
        made.append(client)
        return client

    yield build
    for client in made:
        await client.aclose()


@pytest.fixture
async def client(make_client):
    async with make_client() as c:
        yield c


# ------------------------------------------------------------------ pods


async def test_get_pod_oomkilled(client, fake):
    fake.routes[POD_PATH] = httpx.Response(200, json=OOM_POD)

    pod = await client.get_pod(NS, POD)

    request = fake.requests[0]
    assert (request.method, str(request.url)) == ("GET", f"{BASE}{POD_PATH}")
    assert request.headers["Authorization"] == f"Bearer {TOKEN}"
    assert request.headers["Accept"] == "application/json"
    assert (pod.name, pod.metadata.namespace, pod.metadata.uid) == (POD, NS, UID)
    assert pod.metadata.creation_timestamp == datetime(2025, 11, 3, 8, tzinfo=UTC)
    assert (pod.spec.node_name, pod.spec.restart_policy) == (NODE, "Never")
    assert [(c.name, c.image) for c in pod.spec.containers] == [
        ("trainer", "nvcr.io/nvidia/pytorch:24.08-py3")
    ]
    assert pod.spec.containers[0].resources.limits == {"memory": "32Gi", "nvidia.com/gpu": "1"}
    assert [c.name for c in pod.spec.init_containers] == ["fetch-data"]
    volumes = {v.name: v for v in pod.spec.volumes}
    assert volumes["data"].persistent_volume_claim.claim_name == "imagenet-pvc"
    assert volumes["creds"].secret.secret_name == "s3-creds"
    assert volumes["cfg"].config_map.name == "train-cfg"
    assert volumes["kube-api-access-x7k2p"].secret is None
    assert (pod.status.phase, pod.status.qos_class) == ("Failed", "Guaranteed")
    assert [c.type for c in pod.status.conditions] == ["Initialized", "Ready", "PodScheduled"]
    trainer = pod.status.container_statuses[0]
    terminated = trainer.state.terminated
    assert (trainer.name, trainer.ready, trainer.restart_count) == ("trainer", False, 0)
    assert (terminated.exit_code, terminated.reason, terminated.signal) == (137, "OOMKilled", None)
    assert terminated.container_id == "containerd://a8c3e1"
    assert terminated.finished_at == datetime(2025, 11, 3, 8, 41, 6, tzinfo=UTC)
    assert trainer.last_state.terminated is None
    assert trainer.state.waiting is None
    init = pod.status.init_container_statuses[0]
    assert (init.state.terminated.exit_code, init.state.terminated.reason) == (0, "Completed")


async def test_get_pod_crashloop_backoff(client, fake):
    fake.routes[POD_PATH] = httpx.Response(200, json=crashloop_pod())

    status_ = (await client.get_pod(NS, POD)).status.container_statuses[0]

    assert status_.state.waiting.reason == "CrashLoopBackOff"
    assert status_.state.waiting.message.startswith(
        "back-off 5m0s restarting failed container=trainer"
    )
    assert (status_.last_state.terminated.exit_code, status_.last_state.terminated.reason) == (
        1,
        "Error",
    )
    assert status_.restart_count == 6


async def test_get_pod_image_pull_backoff_and_null_lists(client, fake):
    fake.routes[POD_PATH] = httpx.Response(200, json=image_pull_pod())

    pod = await client.get_pod(NS, POD)

    waiting = pod.status.container_statuses[0].state.waiting
    assert (waiting.reason, waiting.message) == (
        "ImagePullBackOff",
        'Back-off pulling image "nvcr.io/nvidia/pytorch:24.99-py3"',
    )
    assert pod.status.init_container_statuses == ()
    assert pod.status.conditions[0].message == "containers with unready status: [trainer]"


async def test_names_are_escaped_as_one_path_segment(client, fake):
    with pytest.raises(NotFound):
        await client.get_pod("ns", "a/../b")

    assert fake.requests[0].url.raw_path == b"/api/v1/namespaces/ns/pods/a%2F..%2Fb"


@pytest.mark.parametrize("args", [("", POD), (NS, " "), (NS, "")])
async def test_empty_names_are_refused_before_any_request(client, fake, args):
    with pytest.raises(InvalidRequest):
        await client.get_pod(*args)

    assert fake.requests == []


async def test_pod_of_wrong_shape_is_upstream_unavailable(client, fake):
    fake.routes[POD_PATH] = httpx.Response(
        200, json={"status": {"containerStatuses": [{"image": "x"}]}}
    )

    with pytest.raises(UpstreamUnavailable, match="not the documented shape"):
        await client.get_pod(NS, POD)


# ------------------------------------------------------------------ path prefix


@pytest.mark.parametrize(
    "api_url",
    [
        "http://127.0.0.1:8600/k8s/71f69d83-ba66-4822-adf5-55ce55efd210",
        "https://rancher.example.com/k8s/clusters/c-x7k2p/",
    ],
)
async def test_api_url_path_prefix_is_preserved(make_client, fake, api_url):
    prefix = httpx.URL(api_url).path.rstrip("/")
    fake.routes[prefix + NODE_PATH] = httpx.Response(200, json=NOT_READY_NODE)
    fake.routes[prefix + LOG_PATH] = httpx.Response(200, text="ok\n")
    client = make_client(api_url)

    await client.get_node(NODE)
    await client.get_logs(NS, POD, "trainer", previous=True)

    assert fake.paths() == [prefix + NODE_PATH, prefix + LOG_PATH]


# ------------------------------------------------------------------ events


async def test_events_normalised_sorted_and_field_selected(client, fake):
    backoff = core_event(
        "BackOff", f"Back-off restarting failed container trainer in pod {POD}_{NS}({UID})"
    )
    mount = core_event(
        "FailedMount",
        'MountVolume.SetUp failed for volume "creds" : secret "s3-creds" not found',
        firstTimestamp="2025-11-03T08:00:30Z", lastTimestamp="2025-11-03T08:10:30Z", count=6,
    )  # fmt: skip
    fake.routes[EVENTS_PATH] = httpx.Response(
        200, json=event_list([backoff, SCHEDULER_EVENT, mount])
    )

    events = await client.list_pod_events(NS, POD)

    params = fake.requests[0].url.params
    assert params["fieldSelector"] == f"involvedObject.name={POD}"
    assert "continue" not in params
    assert [e.reason for e in events] == ["FailedScheduling", "FailedMount", "BackOff"]
    scheduling, failed_mount, back_off = events
    assert scheduling.count == 3
    assert scheduling.first_timestamp == datetime(2025, 11, 3, 7, 59, 59, 812345, tzinfo=UTC)
    assert scheduling.last_timestamp == datetime(2025, 11, 3, 8, 0, 0, 100000, tzinfo=UTC)
    assert (scheduling.source_component, scheduling.source_host) == ("default-scheduler", None)
    assert (
        failed_mount.message
        == 'MountVolume.SetUp failed for volume "creds" : secret "s3-creds" not found'
    )
    assert (back_off.count, back_off.type, back_off.source_component, back_off.source_host) == (
        14,
        "Warning",
        "kubelet",
        NODE,
    )
    assert (back_off.involved_kind, back_off.involved_name) == ("Pod", POD)
    assert back_off.involved_field_path == "spec.containers{trainer}"


async def test_event_timestamps_fall_back_to_creation_time(client, fake):
    bare = {"metadata": {"name": "e", "creationTimestamp": "2025-11-03T08:05:00Z"},
            "involvedObject": {"kind": "Pod", "name": POD}, "reason": "Killing", "message": "Stopping container trainer",
            "type": "Normal", "firstTimestamp": None, "lastTimestamp": None, "eventTime": None, "count": None}  # fmt: skip
    fake.routes[EVENTS_PATH] = httpx.Response(200, json=event_list([bare]))

    [event] = await client.list_pod_events(NS, POD)

    at = datetime(2025, 11, 3, 8, 5, tzinfo=UTC)
    assert (event.first_timestamp, event.last_timestamp, event.count) == (at, at, 1)
    assert event.source_component is None


async def test_events_follow_continue_tokens(client, fake):
    pages = {
        None: event_list([core_event("Pulling", 'Pulling image "busybox:1.36"')], cont="eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6OTkxMjAsInN0YXJ0IjoiYSJ9"),
        "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6OTkxMjAsInN0YXJ0IjoiYSJ9": event_list([core_event("Started", "Started container trainer")], cont="b2"),
        "b2": event_list([core_event("Killing", "Stopping container trainer")], cont=""),
    }  # fmt: skip
    fake.routes[EVENTS_PATH] = lambda r: httpx.Response(
        200, json=pages[r.url.params.get("continue")]
    )

    events = await client.list_pod_events(NS, POD)

    assert [e.reason for e in events] == ["Pulling", "Started", "Killing"]
    assert [r.url.params.get("continue") for r in fake.requests] == [None, *list(pages)[1:]]
    assert all(r.url.params["fieldSelector"] == f"involvedObject.name={POD}" for r in fake.requests)
    assert all(r.url.params["limit"] == "500" for r in fake.requests)


async def test_repeated_continue_token_is_an_error(client, fake):
    fake.routes[EVENTS_PATH] = httpx.Response(200, json=event_list([], cont="same"))

    with pytest.raises(UpstreamUnavailable, match="continue token repeats") as caught:
        await client.list_pod_events(NS, POD)

    assert caught.value.operation == "kubectl get events"
    assert len(fake.requests) == 2


async def test_endless_pagination_is_bounded(client, fake):
    fake.routes[EVENTS_PATH] = lambda _r: httpx.Response(
        200, json=event_list([], cont=f"t{len(fake.requests)}")
    )

    with pytest.raises(UpstreamUnavailable, match=f"after {MAX_PAGES} pages"):
        await client.list_pod_events(NS, POD)

    assert len(fake.requests) == MAX_PAGES


@pytest.mark.parametrize(
    "core",
    [FORBIDDEN_EVENTS, status(404, "the server could not find the requested resource", "NotFound")],
    ids=["403", "404"],
)
async def test_events_fall_back_to_events_k8s_io(client, fake, core):
    fake.routes[EVENTS_PATH] = core
    fake.routes[EVENTS_V1_PATH] = httpx.Response(200, json=event_list([V1_EVENT], v1=True))

    [event] = await client.list_pod_events(NS, POD)

    assert fake.paths() == [EVENTS_PATH, EVENTS_V1_PATH]
    assert fake.requests[1].url.params["fieldSelector"] == f"regarding.name={POD}"
    assert (event.reason, event.type, event.count) == ("Failed", "Warning", 4)
    assert event.message.startswith(
        'Failed to pull image "nvcr.io/nvidia/pytorch:24.99-py3": rpc error: code = NotFound'
    )
    assert event.first_timestamp == datetime(2025, 11, 3, 8, 0, 12, tzinfo=UTC)
    assert event.last_timestamp == datetime(2025, 11, 3, 8, 4, 40, tzinfo=UTC)
    assert (event.source_component, event.source_host) == ("kubelet", NODE)
    assert (event.involved_kind, event.involved_name, event.involved_field_path) == (
        "Pod",
        POD,
        "spec.containers{trainer}",
    )


async def test_events_v1_series_and_reporting_controller(client, fake):
    series = {**V1_EVENT, "deprecatedSource": {}, "deprecatedCount": 0, "deprecatedFirstTimestamp": None,
              "deprecatedLastTimestamp": None, "eventTime": "2025-11-03T08:00:12.000001Z",
              "series": {"count": 9, "lastObservedTime": "2025-11-03T08:09:00.5Z"}}  # fmt: skip
    fake.routes[EVENTS_PATH] = FORBIDDEN_EVENTS
    fake.routes[EVENTS_V1_PATH] = httpx.Response(200, json=event_list([series], v1=True))

    [event] = await client.list_pod_events(NS, POD)

    assert (event.count, event.source_component, event.source_host) == (9, "kubelet", None)
    assert event.first_timestamp == datetime(2025, 11, 3, 8, 0, 12, 1, tzinfo=UTC)
    assert event.last_timestamp == datetime(2025, 11, 3, 8, 9, 0, 500000, tzinfo=UTC)


async def test_events_fallback_failing_too_raises_the_core_error(client, fake):
    fake.routes[EVENTS_PATH] = FORBIDDEN_EVENTS
    fake.routes[EVENTS_V1_PATH] = status(
        403,
        'events.events.k8s.io is forbidden: User "system:serviceaccount:runai-why:diagnoser" cannot list resource "events"',
        "Forbidden",
    )

    with pytest.raises(AuthError) as caught:
        await client.list_pod_events(NS, POD)

    err = caught.value
    assert (err.status, err.operation, err.url) == (
        403,
        "kubectl get events",
        f"{BASE}{EVENTS_PATH}?fieldSelector=involvedObject.name%3D{POD}&limit=500",
    )
    assert 'cannot list resource "events" in API group ""' in str(err)
    assert "events.k8s.io/v1 too" in str(err)


@pytest.mark.parametrize(
    "core",
    [
        status(401, "Unauthorized", "Unauthorized"),
        status(500, "etcdserver: request timed out", "InternalError"),
    ],
)
async def test_other_event_errors_do_not_fall_back(client, fake, core):
    fake.routes[EVENTS_PATH] = core

    with pytest.raises((AuthError, UpstreamUnavailable)):
        await client.list_pod_events(NS, POD)

    assert EVENTS_V1_PATH not in fake.paths()


# ------------------------------------------------------------------ logs


@pytest.mark.parametrize(
    ("previous", "flag", "operation"),
    [(True, "true", "kubectl logs --previous"), (False, "false", "kubectl logs")],
)
async def test_log_parameters(client, fake, previous, flag, operation):
    text = 'Epoch 3/10\nTraceback (most recent call last):\n  File "train.py", line 88, in <module>\ntorch.OutOfMemoryError: CUDA out of memory.\n'
    fake.routes[LOG_PATH] = httpx.Response(200, text=text, headers={"Content-Type": "text/plain"})

    logs = await client.get_logs(
        NS, POD, "trainer", previous=previous, tail_lines=50, limit_bytes=4096
    )

    assert logs == text
    request = fake.requests[0]
    assert dict(request.url.params) == {
        "container": "trainer",
        "previous": flag,
        "tailLines": "50",
        "limitBytes": "4096",
    }
    assert request.headers["Accept"] == "text/plain"
    fake.routes[LOG_PATH] = status(
        400, f'previous terminated container "trainer" in pod "{POD}" not found', "BadRequest"
    )
    with pytest.raises(UpstreamUnavailable) as caught:
        await client.get_logs(NS, POD, "trainer", previous=previous)
    assert caught.value.operation == operation
    assert caught.value.status == 400
    assert 'previous terminated container "trainer"' in str(caught.value)


async def test_log_defaults(client, fake):
    fake.routes[LOG_PATH] = httpx.Response(200, content=b"caf\xc3")  # limitBytes cut a character

    assert await client.get_logs(NS, POD, "fetch-data", previous=False) == "caf\ufffd"
    assert fake.requests[0].url.params["tailLines"] == "200"
    assert fake.requests[0].url.params["limitBytes"] == "64000"


@pytest.mark.parametrize(
    ("container", "tail", "limit"), [("", 10, 10), ("c", -1, 10), ("c", 10, 0)]
)
async def test_bad_log_arguments(client, fake, container, tail, limit):
    with pytest.raises(InvalidRequest):
        await client.get_logs(NS, POD, container, previous=True, tail_lines=tail, limit_bytes=limit)
    assert fake.requests == []


# ------------------------------------------------------------------ nodes


async def test_get_node_not_ready(client, fake):
    fake.routes[NODE_PATH] = httpx.Response(200, json=NOT_READY_NODE)

    node = await client.get_node(NODE)

    assert (node.name, node.unschedulable) == (NODE, False)
    assert [(t.key, t.effect) for t in node.taints] == [
        ("node.kubernetes.io/unreachable", "NoSchedule"), ("node.kubernetes.io/unreachable", "NoExecute")]  # fmt: skip
    ready = next(c for c in node.conditions if c.type == "Ready")
    assert (ready.status, ready.reason, ready.message) == (
        "Unknown",
        "NodeStatusUnknown",
        "Kubelet stopped posting node status.",
    )
    assert ready.last_heartbeat_time == datetime(2025, 11, 3, 8, 39, 20, tzinfo=UTC)


async def test_cordoned_node_without_taints_or_conditions(client, fake):
    fake.routes[NODE_PATH] = httpx.Response(
        200, json={"metadata": {"name": NODE}, "spec": {"unschedulable": True}, "status": {}}
    )

    node = await client.get_node(NODE)

    assert (node.unschedulable, node.taints, node.conditions) == (True, (), ())


# ------------------------------------------------------------------ read-only


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE", "HEAD"])
async def test_client_cannot_send_anything_but_get(client, fake, method):
    with pytest.raises(
        ReadOnlyViolation,
        match=f"refused {method} /api/v1/namespaces/{NS}/pods: the Kubernetes client is read-only",
    ):
        await client._http.request(method, f"/api/v1/namespaces/{NS}/pods")

    assert fake.requests == []


async def test_no_post_exception_even_for_the_runai_token_path(client, fake):
    with pytest.raises(ReadOnlyViolation):
        await client._http.post("/api/v1/token", json={})

    assert fake.requests == []


# ------------------------------------------------------------------ retries and errors


@pytest.mark.parametrize("code", [429, 500, 502, 503, 504])
async def test_transient_statuses_are_retried(client, fake, sleeps, code):
    fake.routes[NODE_PATH] = [
        status(code, "etcdserver: leader changed", "InternalError"),
        httpx.Response(200, json=NOT_READY_NODE),
    ]

    assert (await client.get_node(NODE)).name == NODE
    assert len(fake.requests) == 2
    assert len(sleeps) == 1


@pytest.mark.parametrize(
    ("response", "error", "text"),
    [
        (
            status(401, "Unauthorized", "Unauthorized"),
            AuthError,
            "refused the credentials: Unauthorized",
        ),
        (
            status(
                403,
                f'pods "{POD}" is forbidden: User "system:serviceaccount:runai-why:diagnoser" cannot get resource "pods" in API group "" in the namespace "{NS}"',
                "Forbidden",
            ),
            AuthError,
            "denied access (RBAC): pods",
        ),
        (
            status(404, f'pods "{POD}" not found', "NotFound"),
            NotFound,
            f'no such resource: pods "{POD}" not found',
        ),
        (
            status(400, "bad field selector", "BadRequest"),
            UpstreamUnavailable,
            "rejected the request",
        ),
        (
            status(
                410,
                "The provided continue parameter is too old to display a consistent list result.",
                "Expired",
            ),
            UpstreamUnavailable,
            "too old",
        ),
        (
            status(
                503, "the server is currently unable to handle the request", "ServiceUnavailable"
            ),
            UpstreamUnavailable,
            "kept failing: the server",
        ),
        (
            httpx.Response(502, text="<html><body>502 Bad Gateway</body></html>"),
            UpstreamUnavailable,
            "kept failing (HTTP 502)",
        ),
        (
            httpx.Response(200, text="<html>login</html>"),
            UpstreamUnavailable,
            "the body is not JSON",
        ),
    ],
    ids=["401", "403", "404", "400", "410", "503", "502-html", "200-html"],
)
async def test_error_mapping_table(client, fake, response, error, text):
    fake.routes[POD_PATH] = response

    with pytest.raises(error) as caught:
        await client.get_pod(NS, POD)

    err = caught.value
    assert type(err) is error
    assert text in str(err)
    assert (err.operation, err.url, err.status) == (
        "kubectl describe pod",
        f"{BASE}{POD_PATH}",
        response.status_code,
    )


def test_status_message_is_truncated():
    assert len(error_message(status(500, "x" * 5000, "InternalError"))) < 210


@pytest.mark.parametrize(
    ("exc", "error"),
    [
        (
            httpx.ConnectError(
                "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: unable to get local issuer certificate"
            ),
            UpstreamUnavailable,
        ),
        (httpx.ReadError("Connection reset by peer"), UpstreamUnavailable),
        (httpx.ConnectTimeout("timed out"), UpstreamTimeout),
        (httpx.ReadTimeout("timed out"), UpstreamTimeout),
        (httpx.WriteTimeout("timed out"), UpstreamTimeout),
        (httpx.UnsupportedProtocol("Request URL has an unsupported protocol"), UpstreamUnavailable),
    ],
)
async def test_transport_errors_become_diagnosis_errors(client, fake, exc, error):
    def boom(request: httpx.Request) -> httpx.Response:
        raise exc

    fake.routes[LOG_PATH] = boom

    with pytest.raises(error) as caught:
        await client.get_logs(NS, POD, "trainer", previous=True)

    assert caught.value.operation == "kubectl logs --previous"
    assert caught.value.url.startswith(f"{BASE}{LOG_PATH}?container=trainer")
    assert isinstance(caught.value.__cause__, httpx.HTTPError)


async def test_tls_failure_reason_is_reported(client, fake):
    def boom(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed")

    fake.routes[NODE_PATH] = boom

    with pytest.raises(UpstreamUnavailable, match="CERTIFICATE_VERIFY_FAILED"):
        await client.get_node(NODE)
    assert len(fake.requests) == 3  # retried: 1 + retries=2


async def test_timeout_is_set_on_every_request(make_client, fake):
    fake.routes[NODE_PATH] = httpx.Response(200, json=NOT_READY_NODE)
    client = make_client(timeout_s=3.5)

    await client.get_node(NODE)

    assert fake.requests[0].extensions["timeout"] == {
        "connect": 3.5,
        "read": 3.5,
        "write": 3.5,
        "pool": 3.5,
    }


# ------------------------------------------------------------------ token hygiene


async def test_token_never_in_errors_or_logs(client, fake):
    fake.routes[POD_PATH] = status(401, f"invalid bearer token {TOKEN}", "Unauthorized")

    with capture_logs() as logs, pytest.raises(AuthError) as caught:
        await client.get_pod(NS, POD)

    assert TOKEN not in str(caught.value)
    assert "invalid bearer token ***" in str(caught.value)
    assert TOKEN not in repr(logs)
    assert logs  # the request was logged, without the token


async def test_transport_error_text_is_scrubbed(client, fake):
    def boom(request: httpx.Request) -> httpx.Response:
        raise httpx.RemoteProtocolError(f"illegal header value b'Bearer {TOKEN}'")

    fake.routes[POD_PATH] = boom

    with pytest.raises(UpstreamUnavailable) as caught:
        await client.get_pod(NS, POD)

    assert TOKEN not in str(caught.value)


def test_target_repr_hides_the_token():
    target = KubeTarget.for_url("http://127.0.0.1:8600/k8s/x", TOKEN)

    assert TOKEN not in repr(target)
    assert TOKEN not in str(target.model_dump())
    assert TOKEN not in target.model_dump_json()


async def test_no_token_sends_no_authorization_header(make_client, fake):
    fake.routes[NODE_PATH] = httpx.Response(200, json=NOT_READY_NODE)
    client = make_client(token=None)

    await client.get_node(NODE)

    assert "Authorization" not in fake.requests[0].headers


async def test_tls_server_name_is_sent_as_sni(make_client, fake):
    fake.routes[NODE_PATH] = httpx.Response(200, json=NOT_READY_NODE)
    client = make_client(tls_server_name="kubernetes.default.svc")

    await client.get_node(NODE)

    assert fake.requests[0].extensions["sni_hostname"] == "kubernetes.default.svc"
