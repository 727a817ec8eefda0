"""`RunaiClient` endpoints: query parameters, pagination, filtering, spec kinds and shapes."""

from __future__ import annotations

import inspect
from datetime import UTC, datetime, timedelta, timezone

import httpx
import pytest

from diagnosis.errors import InvalidRequest, NotFound, UpstreamUnavailable
from diagnosis.runai.client import MAX_PAGES, RunaiClient
from diagnosis.runai.models import Workload
from diagnosis.runai.reader import RunaiReader

T = datetime(2025, 11, 3, 9, 30, tzinfo=UTC)


def wl(name: str = "train-1", project: str = "nlp", cluster: str = "c-1", **extra) -> dict:
    return {"id": f"id-{name}-{project}-{cluster}", "name": name, "clusterId": cluster,
            "projectName": project, **extra}  # fmt: skip


def paged(key: str, pages: list[list[dict]], *, size: int = 100):
    """A route serving `pages` by `offset`, with `next` on all but the last page."""

    def route(request: httpx.Request) -> httpx.Response:
        index = int(request.url.params.get("offset", "0")) // size
        body: dict = {key: pages[index]}
        if index + 1 < len(pages):
            body["next"] = (index + 1) * size
        return httpx.Response(200, json=body)

    return route


def event(minutes_before: int, reason: str = "BackOff") -> dict:
    at = T - timedelta(minutes=minutes_before)
    return {"createdAt": at.isoformat(), "type": "Warning", "reason": reason, "message": "m"}


def record(minutes_before: int) -> dict:
    at = (T - timedelta(minutes=minutes_before)).isoformat()
    return {"meta": {"creationTimestamp": at, "type": "PhaseUpdate"},
            "spec": {"phaseUpdate": {"phase": "Running", "phaseMessage": ""}}}  # fmt: skip


# ------------------------------------------------------------------ protocol


def test_client_has_the_reader_methods_and_signatures():
    for name, member in inspect.getmembers(RunaiReader, inspect.isfunction):
        if name.startswith("_"):
            continue
        ours = inspect.signature(getattr(RunaiClient, name))
        theirs = inspect.signature(member)
        assert [(p.name, p.kind, p.default) for p in ours.parameters.values()] == [
            (p.name, p.kind, p.default) for p in theirs.parameters.values()
        ], name
        assert inspect.iscoroutinefunction(getattr(RunaiClient, name)), name


async def test_context_manager_closes_the_http_client(make_client):
    async with make_client() as client:
        assert not client._http.is_closed
    assert client._http.is_closed


# ------------------------------------------------------------------ list_workloads


async def test_list_workloads_sends_one_comma_joined_filter(client, fake):
    fake.routes["/api/v1/workloads"] = httpx.Response(200, json={"workloads": [wl()]})

    found = await client.list_workloads(cluster_id="c-1", project="nlp", name="train-1")

    assert [w.name for w in found] == ["train-1"]
    params = fake.api_requests[0].url.params
    assert params.get_list("filterBy") == ["name==train-1,clusterId==c-1,projectName==nlp"]
    assert (params["sortBy"], params["sortOrder"], params["limit"]) == (
        "phaseUpdatedAt",
        "desc",
        "100",
    )
    assert "offset" not in params


async def test_list_workloads_follows_next_across_three_pages(client, fake):
    fake.routes["/api/v1/workloads"] = paged(
        "workloads", [[wl(cluster="c-1")], [wl(cluster="c-1", id="b")], [wl(id="c")]]
    )

    found = await client.list_workloads(cluster_id="c-1", project="nlp", name="train-1")

    assert [w.id for w in found] == ["id-train-1-nlp-c-1", "b", "c"]
    offsets = [r.url.params.get("offset") for r in fake.api_requests]
    assert offsets == [None, "100", "200"]
    assert all(r.url.params["filterBy"].startswith("name==") for r in fake.api_requests)


async def test_list_workloads_drops_inexact_matches(client, fake):
    """Whatever the server's filter did, only exact name/project/cluster matches survive."""
    fake.routes["/api/v1/workloads"] = httpx.Response(
        200,
        json={
            "workloads": [
                wl(),
                wl(name="train-10"),
                wl(project="nlp-2"),
                wl(cluster="c-2"),
                wl(name="Train-1"),
            ],
            "next": None,
        },
    )

    found = await client.list_workloads(cluster_id="c-1", project="nlp", name="train-1")

    assert [(w.name, w.project_name, w.cluster_id) for w in found] == [("train-1", "nlp", "c-1")]


async def test_pagination_that_repeats_next_is_stopped(client, fake):
    fake.routes["/api/v1/workloads"] = httpx.Response(200, json={"workloads": [], "next": 100})

    with pytest.raises(UpstreamUnavailable, match="pagination did not terminate") as caught:
        await client.list_workloads(cluster_id="c-1", project="nlp", name="train-1")

    assert caught.value.operation == "list_workloads"
    assert len(fake.api_requests) == 2


async def test_pagination_that_never_ends_is_capped(client, fake):
    def forever(request: httpx.Request) -> httpx.Response:
        offset = int(request.url.params.get("offset", "0"))
        return httpx.Response(200, json={"workloads": [], "next": offset + 100})

    fake.routes["/api/v1/workloads"] = forever

    with pytest.raises(UpstreamUnavailable, match=f"after {MAX_PAGES} pages"):
        await client.list_workloads(cluster_id="c-1", project="nlp", name="train-1")

    assert len(fake.api_requests) == MAX_PAGES


@pytest.mark.parametrize(
    "body",
    [
        {"items": []},
        {"workloads": {"not": "a list"}},
        {"workloads": [{"name": "missing id and clusterId"}]},
        {"workloads": [], "next": "soon"},
        ["bare", "array"],
    ],
    ids=["no-member", "not-a-list", "invalid-item", "bad-next", "bare-array"],
)
async def test_wrong_shape_is_upstream_unavailable(client, fake, body):
    fake.routes["/api/v1/workloads"] = httpx.Response(200, json=body)

    with pytest.raises(UpstreamUnavailable, match="not the documented shape") as caught:
        await client.list_workloads(cluster_id="c-1", project="nlp", name="train-1")

    assert caught.value.operation == "list_workloads"


# ------------------------------------------------------------------ get_workload


async def test_get_workload(client, fake):
    fake.routes["/api/v1/workloads/w-1"] = httpx.Response(200, json=wl(id="w-1", phase="Failed"))

    workload = await client.get_workload("w-1")

    assert (workload.id, workload.phase) == ("w-1", "Failed")


async def test_get_workload_escapes_the_id(client, fake):
    with pytest.raises(NotFound) as caught:
        await client.get_workload("../token")

    assert fake.api_requests[0].url.raw_path == b"/api/v1/workloads/..%2Ftoken"
    assert caught.value.status == 404
    assert "Resource id not found." in str(caught.value)


async def test_empty_workload_id_is_invalid(client, fake):
    with pytest.raises(InvalidRequest):
        await client.get_workload(" ")
    assert fake.requests == []


@pytest.mark.parametrize(
    "response",
    [
        httpx.Response(200, text="{not json"),
        httpx.Response(200, text="<html>proxy login</html>"),
        httpx.Response(200, json={"name": "no id"}),
    ],
    ids=["truncated-json", "html", "wrong-shape"],
)
async def test_malformed_body_is_upstream_unavailable(client, fake, response):
    fake.routes["/api/v1/workloads/w-1"] = response

    with pytest.raises(UpstreamUnavailable) as caught:
        await client.get_workload("w-1")

    assert caught.value.operation == "get_workload_status"
    assert caught.value.url == "https://acme.run.ai/api/v1/workloads/w-1"


# ------------------------------------------------------------------ events


async def test_events_null_is_none(client, fake):
    fake.routes["/api/v1/workloads/w-1/events"] = httpx.Response(200, json={"events": None})

    assert await client.list_events("w-1", since=T - timedelta(hours=1)) is None


async def test_events_sorted_desc_and_stop_at_since(client, fake):
    fake.routes["/api/v1/workloads/w-1/events"] = paged(
        "events",
        [[event(1), event(5)], [event(20), event(90)], [event(120)]],
    )

    events = await client.list_events("w-1", since=T - timedelta(hours=1))

    assert [e.created_at for e in events] == [T - timedelta(minutes=m) for m in (1, 5, 20)]
    assert len(fake.api_requests) == 2  # the page reaching past `since` is the last one read
    params = fake.api_requests[0].url.params
    assert (params["sortOrder"], params["limit"]) == ("desc", "100")


async def test_events_accept_a_naive_since_as_utc(client, fake):
    fake.routes["/api/v1/workloads/w-1/events"] = httpx.Response(
        200, json={"events": [event(1), event(90)]}
    )

    events = await client.list_events("w-1", since=(T - timedelta(hours=1)).replace(tzinfo=None))

    assert len(events) == 1


# ------------------------------------------------------------------ spec


@pytest.mark.parametrize(
    ("workload_type", "kind"),
    [
        ("Training", "trainings"),
        ("train", "trainings"),
        ("Workspace", "workspaces"),
        ("INTERACTIVE", "workspaces"),
        ("Inference", "inferences"),
        ("Distributed", "distributed"),
        ("distributed-inference", "distributed-inferences"),
        ("DistributedInference", "distributed-inferences"),
    ],
)
async def test_spec_kind_from_type(client, fake, workload_type, kind):
    fake.routes[f"/api/v1/workloads/{kind}/w-1"] = httpx.Response(
        200, json={"workloadId": "w-1", "spec": {"image": "img:1", "args": "--x"}}
    )

    spec = await client.get_workload_spec(
        Workload(id="w-1", name="n", cluster_id="c", type=workload_type)
    )

    assert spec.kind_path == kind
    assert (spec.workload_id, spec.spec.image, spec.spec.args) == ("w-1", "img:1", "--x")
    assert fake.paths() == [f"/api/v1/workloads/{kind}/w-1"]


async def test_spec_of_workloads_v2(client, fake):
    fake.routes["/api/v2/workloads/w-1"] = httpx.Response(200, json={"name": "n"})
    workload = Workload(
        id="w-1", name="n", cluster_id="c", type="Training", source_api="WorkloadsV2"
    )

    spec = await client.get_workload_spec(workload)

    assert spec.kind_path == "v2"
    assert fake.paths() == ["/api/v2/workloads/w-1"]


@pytest.mark.parametrize("workload_type", ["runai-job", None, ""])
async def test_spec_unknown_type_falls_back_in_order(client, fake, workload_type):
    fake.routes["/api/v1/workloads/inferences/w-1"] = httpx.Response(200, json={"spec": {}})

    spec = await client.get_workload_spec(
        Workload(id="w-1", name="n", cluster_id="c", type=workload_type)
    )

    assert spec.kind_path == "inferences"
    assert fake.paths() == [
        "/api/v1/workloads/trainings/w-1",
        "/api/v1/workloads/workspaces/w-1",
        "/api/v1/workloads/inferences/w-1",
    ]


async def test_spec_unknown_type_everywhere_404_is_not_found(client, fake):
    with pytest.raises(NotFound) as caught:
        await client.get_workload_spec(Workload(id="w-1", name="n", cluster_id="c", type="odd"))

    assert caught.value.operation == "get_workload_spec"
    assert len(fake.api_requests) == 4


async def test_spec_known_type_404_does_not_fall_back(client, fake):
    with pytest.raises(NotFound):
        await client.get_workload_spec(
            Workload(id="w-1", name="n", cluster_id="c", type="Training")
        )

    assert fake.paths() == ["/api/v1/workloads/trainings/w-1"]


async def test_spec_fallback_stops_on_other_errors(client, fake):
    fake.routes["/api/v1/workloads/trainings/w-1"] = httpx.Response(403, json={"code": 403})

    with pytest.raises(Exception, match="refused the credentials"):
        await client.get_workload_spec(Workload(id="w-1", name="n", cluster_id="c", type="odd"))

    assert len(fake.api_requests) == 1


# ------------------------------------------------------------------ pods


async def test_pods_follow_next(client, fake):
    fake.routes["/api/v1/workloads/w-1/pods"] = paged(
        "pods", [[{"name": "p-0"}], [{"name": "p-1"}], [{"name": "p-2"}]]
    )

    pods = await client.list_pods("w-1")

    assert [p.name for p in pods] == ["p-0", "p-1", "p-2"]
    assert [r.url.params.get("offset") for r in fake.api_requests] == [None, "100", "200"]


# ------------------------------------------------------------------ history


async def test_history_descending_pages_stop_at_cutoff(client, fake):
    fake.routes["/api/v1/workloads/w-1/history"] = paged(
        "records", [[record(1), record(10)], [record(30), record(70)], [record(200)]], size=50
    )

    records = await client.get_history("w-1", cutoff=T - timedelta(hours=1))

    assert [r.at for r in records] == [T - timedelta(minutes=m) for m in (30, 10, 1)]
    assert len(fake.api_requests) == 2
    assert fake.api_requests[0].url.params["limit"] == "500"


async def test_history_ascending_pages_are_all_read(client, fake):
    fake.routes["/api/v1/workloads/w-1/history"] = paged(
        "records",
        [[record(200), record(150)], [record(90), record(30)], [record(5)]],
        size=50,
    )

    records = await client.get_history("w-1", cutoff=T - timedelta(hours=1))

    assert [r.at for r in records] == [T - timedelta(minutes=m) for m in (30, 5)]
    assert len(fake.api_requests) == 3


# ------------------------------------------------------------------ metrics


async def test_metrics_query(client, fake):
    fake.routes["/api/v1/workloads/w-1/metrics"] = httpx.Response(
        200,
        json={
            "measurements": [
                {"type": "CPU_MEMORY_USAGE_BYTES", "values": [{"value": "1", "timestamp": None}]}
            ]
        },
    )

    found = await client.get_metrics(
        "w-1",
        metric_types=["CPU_MEMORY_USAGE_BYTES", "CPU_MEMORY_LIMIT_BYTES"],
        start=datetime(2025, 11, 3, 9, 10, tzinfo=UTC),
        end=datetime(2025, 11, 3, 9, 35),  # noqa: DTZ001 - naive is read as UTC
        samples=3,
    )

    assert found[0].values[0].value == "1"
    params = fake.api_requests[0].url.params
    assert params.get_list("metricType") == ["CPU_MEMORY_USAGE_BYTES,CPU_MEMORY_LIMIT_BYTES"]
    assert (params["start"], params["end"], params["numberOfSamples"]) == (
        "2025-11-03T09:10:00Z",
        "2025-11-03T09:35:00Z",
        "3",
    )


async def test_metrics_start_is_converted_to_utc(client, fake):
    fake.routes["/api/v1/workloads/w-1/metrics"] = httpx.Response(200, json={"measurements": []})
    cet = timezone(timedelta(hours=1))

    await client.get_metrics(
        "w-1",
        metric_types=["GPU_UTILIZATION"],
        start=datetime(2025, 11, 3, 10, 0, tzinfo=cet),
        end=T,
    )

    assert fake.api_requests[0].url.params["start"] == "2025-11-03T09:00:00Z"


@pytest.mark.parametrize("status", [200, 207])
async def test_metrics_accept_partial_success(client, fake, status):
    fake.routes["/api/v1/workloads/w-1/metrics"] = httpx.Response(
        status, json={"measurements": [{"type": "GPU_UTILIZATION", "values": None}]}
    )

    found = await client.get_metrics("w-1", metric_types=["GPU_UTILIZATION"], start=T, end=T)

    assert [(m.type, m.values) for m in found] == [("GPU_UTILIZATION", ())]


async def test_metrics_need_a_type(client, fake):
    with pytest.raises(InvalidRequest):
        await client.get_metrics("w-1", metric_types=[], start=T, end=T)
    assert fake.requests == []


# ------------------------------------------------------------------ clusters and nodes


async def test_clusters_bare_array(client, fake):
    fake.routes["/api/v1/clusters"] = httpx.Response(200, json=[{"uuid": "c-1", "name": "prod"}])

    assert [(c.uuid, c.name) for c in await client.list_clusters()] == [("c-1", "prod")]


async def test_clusters_envelope_is_wrong_shape(client, fake):
    fake.routes["/api/v1/clusters"] = httpx.Response(200, json={"clusters": []})

    with pytest.raises(UpstreamUnavailable) as caught:
        await client.list_clusters()
    assert caught.value.operation == "list_clusters"


@pytest.mark.parametrize(
    ("names", "expected_filter", "expected_nodes"),
    [
        (["n-1"], "clusterUuid==c-1,name==n-1", ["n-1"]),
        (["n-1", "n-3"], "clusterUuid==c-1", ["n-1", "n-3"]),
    ],
)
async def test_nodes_filtered_to_cluster_and_names(
    client, fake, names, expected_filter, expected_nodes
):
    fake.routes["/api/v1/nodes"] = httpx.Response(
        200,
        json={
            "nodes": [
                {"name": "n-1", "clusterUuid": "c-1", "status": "NotReady"},
                {"name": "n-2", "clusterUuid": "c-1", "status": "Ready"},
                {"name": "n-3", "clusterUuid": "c-1", "status": "Ready"},
                {"name": "n-3", "clusterUuid": "c-other", "status": "Ready"},
            ]
        },
    )

    nodes = await client.list_nodes(cluster_id="c-1", names=names)

    assert [n.name for n in nodes] == expected_nodes
    assert fake.api_requests[0].url.params.get_list("filterBy") == [expected_filter]


async def test_nodes_without_names_make_no_call(client, fake):
    assert await client.list_nodes(cluster_id="c-1", names=[]) == []
    assert fake.requests == []
