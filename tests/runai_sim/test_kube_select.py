"""`Indexed` narrows an event list by a field selector to exactly what a full scan selects."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import pytest
from starlette.requests import Request

from runai_sim.kube_select import Indexed, KubeError, selected

FIELDS = {
    "involvedObject.name": ("involvedObject", "name"),
    "involvedObject.kind": ("involvedObject", "kind"),
    "reason": ("reason",),
}


def _event(index: int, kind: str, name: str, reason: str | None) -> dict[str, Any]:
    event: dict[str, Any] = {
        "metadata": {"name": f"e{index}", "namespace": "ns"},
        "involvedObject": {"kind": kind, "name": name},
    }
    if reason is not None:
        event["reason"] = reason
    return event


EVENTS = [
    _event(i, kind, name, reason)
    for i, (kind, name, reason) in enumerate(
        [
            ("Pod", "a", "OOMKilling"),
            ("Node", "n1", "NodeNotReady"),
            ("Pod", "b", None),
            ("Pod", "a", "BackOff"),
            ("Node", "a", "Rebooted"),
            ("Pod", "c", "OOMKilling"),
        ]
    )
]


def _request(selector: str | None) -> Request:
    query = urlencode({"fieldSelector": selector}) if selector is not None else ""
    return Request({"type": "http", "query_string": query.encode(), "headers": []})


@pytest.mark.parametrize(
    "selector",
    [
        None,
        "",
        "involvedObject.name=a",
        "involvedObject.kind=Node,involvedObject.name=a",
        "involvedObject.name=a,involvedObject.kind=Node",
        "involvedObject.name!=a",
        "involvedObject.name!=a,reason=OOMKilling",
        "reason=",
        "reason==OOMKilling",
        "involvedObject.name=nobody",
    ],
)
def test_narrowed_selects_what_a_full_scan_selects(selector: str | None) -> None:
    index = Indexed(EVENTS)
    request = _request(selector)
    narrowed = selected(index.narrowed(request, FIELDS), request, FIELDS)
    assert narrowed == selected(EVENTS, request, FIELDS)
    # asked twice (the table is built once), the answer is the same
    assert selected(index.narrowed(request, FIELDS), request, FIELDS) == narrowed


def test_an_unknown_field_is_still_refused() -> None:
    request = _request("metadata.uid=x")
    with pytest.raises(KubeError, match="field label not supported"):
        selected(Indexed(EVENTS).narrowed(request, FIELDS), request, FIELDS)
