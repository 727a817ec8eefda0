"""The event reads of `KubeClient`: a pod's or a node's events, every page, from either API.

A mixin over the client's GET, so `client.py` stays about pods, nodes and logs. core/v1 is
asked first, events.k8s.io/v1 when it answers 403 or 404.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from diagnosis.errors import AuthError, NotFound, UpstreamUnavailable
from diagnosis.http.paths import nonempty, segment
from diagnosis.http.responses import shape_error
from diagnosis.kube.event_models import KubeEvent, event_from_core, event_from_events_v1
from diagnosis.kube.responses import NAMED, KubeGet, kind_of, response_json, response_url
from diagnosis.moments import in_utc

if TYPE_CHECKING:
    from collections.abc import Callable


__all__ = ["GET_EVENTS", "MAX_PAGES", "EventReads"]

GET_EVENTS = "kubectl get events"

MAX_PAGES = 20
"""Most `continue` pages one event list follows before deciding pagination is broken."""

_PAGE_SIZE = 500
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class EventReads(KubeGet):
    """`list_pod_events` and `list_node_events` (see the module docstring)."""

    async def list_pod_events(self, namespace: str, pod_name: str) -> list[KubeEvent]:
        """`kubectl get events --field-selector involvedObject.name=<pod>`, oldest first.

        Follows `continue` tokens. When core/v1 answers 403 or 404, asks events.k8s.io/v1
        (`regarding.name=<pod>`) instead; if that fails too, the core/v1 error is raised.
        """
        ns = segment(namespace, NAMED)
        return await self._object_events(
            (f"/api/v1/namespaces/{ns}/events", f"/apis/events.k8s.io/v1/namespaces/{ns}/events"),
            {"name": nonempty(pod_name, NAMED)},
        )

    async def list_node_events(self, name: str) -> list[KubeEvent]:
        """The node's own events (`kubectl describe node` shows them), oldest first.

        Cluster-wide, selected by `involvedObject.kind=Node` and the node name; the same
        events.k8s.io/v1 fallback as `list_pod_events`.
        """
        return await self._object_events(
            ("/api/v1/events", "/apis/events.k8s.io/v1/events"),
            {"kind": "Node", "name": nonempty(name, NAMED)},
        )

    async def _object_events(
        self, paths: tuple[str, str], match: dict[str, str]
    ) -> list[KubeEvent]:
        core_path, v1_path = paths

        def selector(prefix: str) -> str:
            return ",".join(f"{prefix}.{k}={_selector_value(v)}" for k, v in match.items())

        try:
            events = await self._events(core_path, selector("involvedObject"), event_from_core)
        except (AuthError, NotFound) as core:
            if core.status not in {403, 404}:
                raise
            try:
                events = await self._events(v1_path, selector("regarding"), event_from_events_v1)
            except (AuthError, NotFound) as fallback:
                message = f"{core.args[0]}; events.k8s.io/v1 too: {fallback.args[0]}"
                raise type(core)(
                    message, operation=GET_EVENTS, url=core.url, status=core.status
                ) from fallback
        return sorted(events, key=_when)

    async def _events(
        self, path: str, selector: str, normalise: Callable[[Any], KubeEvent]
    ) -> list[KubeEvent]:
        events: list[KubeEvent] = []
        seen: set[str] = set()
        params: dict[str, str | int] = {"fieldSelector": selector, "limit": _PAGE_SIZE}
        for _ in range(MAX_PAGES):
            response = await self._get(path, operation=GET_EVENTS, params=params)
            body, url = response_json(response, GET_EVENTS), response_url(response)
            if not isinstance(body, dict):
                raise shape_error(
                    f"expected an EventList object, got {kind_of(body)}",
                    operation=GET_EVENTS,
                    url=url,
                )
            items = body.get("items")
            if not isinstance(items, list):  # `{"items": null}` is not "no events"
                raise shape_error(f"`items` is {kind_of(items)}", operation=GET_EVENTS, url=url)
            meta = body.get("metadata")
            if not isinstance(meta, dict | None):
                raise shape_error(f"`metadata` is {kind_of(meta)}", operation=GET_EVENTS, url=url)
            try:
                events.extend(normalise(item) for item in items)
            except ValidationError as exc:
                first = exc.errors(include_input=False, include_url=False)[0]
                where = ".".join(str(p) for p in first["loc"]) or "item"
                raise shape_error(
                    f"{where}: {first['msg']}", operation=GET_EVENTS, url=url
                ) from exc
            token = (meta or {}).get("continue")
            if not token:
                return events
            if not isinstance(token, str):
                raise shape_error(f"`continue` is {kind_of(token)}", operation=GET_EVENTS, url=url)
            if token in seen:
                raise UpstreamUnavailable(
                    "pagination did not terminate (a continue token repeats)",
                    operation=GET_EVENTS,
                    url=url,
                )
            seen.add(token)
            params = {**params, "continue": token}
        raise UpstreamUnavailable(
            f"pagination did not terminate after {MAX_PAGES} pages", operation=GET_EVENTS, url=path
        )


def _selector_value(value: str) -> str:
    r"""`value` escaped for a field selector (``\\``, ``,`` and ``=`` are special)."""
    return value.replace("\\", "\\\\").replace(",", "\\,").replace("=", "\\=")


def _when(event: KubeEvent) -> datetime:
    moment = event.last_timestamp or event.first_timestamp or _EPOCH
    return in_utc(moment)
