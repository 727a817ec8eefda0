"""A Kubernetes body of the wrong shape is `UpstreamUnavailable` (a stated gap), never a crash.

`{"items": null}` is not "no events", and a JSON body where log text belongs is not a log.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from diagnosis.errors import UpstreamUnavailable
from diagnosis.kube.client import KubeClient
from diagnosis.kube.config import KubeTarget

BASE = "https://10.96.0.1"
NS, POD, NODE = "runai-nlp", "t-0-0", "dgx-a100-02"
POD_PATH = f"/api/v1/namespaces/{NS}/pods/{POD}"
EVENTS_PATH = f"/api/v1/namespaces/{NS}/events"
NODE_PATH = f"/api/v1/nodes/{NODE}"
LOG_PATH = f"{POD_PATH}/log"
NODE_EVENTS_PATH = "/api/v1/events"

EVENT = {"metadata": {"name": "e", "namespace": NS}, "reason": "BackOff", "message": "m"}


async def _read(path: str, what: str, response: httpx.Response) -> Any:
    def route(request: httpx.Request) -> httpx.Response:
        if request.url.path == path:
            return response
        return httpx.Response(404, json={"kind": "Status", "code": 404})

    target = KubeTarget.for_url(BASE, "t0ken", retries=0)
    async with KubeClient(target, transport=httpx.MockTransport(route)) as client:
        calls = {
            "pod": lambda: client.get_pod(NS, POD),
            "events": lambda: client.list_pod_events(NS, POD),
            "node": lambda: client.get_node(NODE),
            "node-events": lambda: client.list_node_events(NODE),
            "logs": lambda: client.get_logs(NS, POD, "trainer", previous=True),
        }
        return await calls[what]()


def _json(body: Any) -> httpx.Response:
    return httpx.Response(200, json=body)


WRONG: list[tuple[str, str, Any]] = [
    ("events", EVENTS_PATH, None),
    ("events", EVENTS_PATH, "a string"),
    ("events", EVENTS_PATH, []),
    ("events", EVENTS_PATH, {}),
    ("events", EVENTS_PATH, {"kind": "EventList", "items": None}),
    ("events", EVENTS_PATH, {"items": "x"}),
    ("events", EVENTS_PATH, {"items": [None]}),
    ("events", EVENTS_PATH, {"items": [EVENT], "metadata": "x"}),
    ("events", EVENTS_PATH, {"items": [EVENT], "metadata": {"continue": 7}}),
    ("node-events", NODE_EVENTS_PATH, {"items": None}),
    ("pod", POD_PATH, None),
    ("pod", POD_PATH, "a string"),
    ("pod", POD_PATH, {"status": "Failed"}),
    ("pod", POD_PATH, {"spec": {"containers": "trainer"}}),
    ("pod", POD_PATH, {"status": {"containerStatuses": [None]}}),
    ("node", NODE_PATH, None),
    ("node", NODE_PATH, {"metadata": "x"}),
    ("node", NODE_PATH, {"metadata": {"name": NODE}, "spec": "cordoned"}),
    ("node", NODE_PATH, {"metadata": {"name": NODE}, "status": {"conditions": "Ready"}}),
]


@pytest.mark.parametrize(("what", "path", "body"), WRONG)
async def test_wrong_shape_is_upstream_unavailable(what, path, body):
    with pytest.raises(UpstreamUnavailable, match="not the documented shape"):
        await _read(path, what, _json(body))


async def test_json_where_log_text_belongs_is_not_a_log():
    status = {"kind": "Status", "status": "Success", "message": "ok"}
    with pytest.raises(UpstreamUnavailable, match="not the documented shape"):
        await _read(LOG_PATH, "logs", _json(status))


async def test_an_empty_event_list_is_no_events():
    """The boundary: `items: []` is the upstream saying "nothing happened"."""
    assert await _read(EVENTS_PATH, "events", _json({"kind": "EventList", "items": []})) == []


async def test_plain_text_log_is_read():
    text = "Traceback (most recent call last):\nValueError: boom\n"
    response = httpx.Response(200, text=text, headers={"content-type": "text/plain"})
    assert await _read(LOG_PATH, "logs", response) == text
