import pytest

from tests.runai_sim.sim_helpers import BERT, BERT2, CLUSTER, VISION

METRICS = f"/api/v1/workloads/{BERT}/metrics"
WINDOW = {"start": "2025-11-03T09:00:00Z", "end": "2025-11-03T09:40:00Z"}


async def test_pods_page_with_next(reader, scenario):
    first = (await reader.get(f"/api/v1/workloads/{BERT}/pods", params={"limit": 1})).json()
    assert first == {"pods": [scenario.workload(BERT).pods[0]], "next": 1}
    second = (await reader.get(f"/api/v1/workloads/{BERT}/pods", params={"offset": 1})).json()
    assert [pod["name"] for pod in second["pods"]] == ["bert-ft-0-1"]
    assert "next" not in second


async def test_pods_of_a_workload_without_pods_are_an_empty_list(reader):
    assert (await reader.get(f"/api/v1/workloads/{VISION}/pods")).json() == {"pods": []}


@pytest.mark.parametrize("tail", ["pods", "events", "history", "metrics"])
async def test_subresources_of_an_unknown_workload_are_404(reader, tail):
    response = await reader.get(
        f"/api/v1/workloads/nope/{tail}", params={"metricType": "POD_COUNT", **WINDOW}
    )
    assert response.status_code == 404
    assert response.json()["message"] == "Resource id not found."


async def test_events_default_to_newest_first(reader):
    body = (await reader.get(f"/api/v1/workloads/{BERT}/events")).json()
    assert [e["reason"] for e in body["events"]] == ["BackOff", "Started", "Scheduled"]
    assert "next" not in body


async def test_events_ascending_and_paged(reader):
    params = {"sortOrder": "asc", "limit": 2}
    first = (await reader.get(f"/api/v1/workloads/{BERT}/events", params=params)).json()
    assert [e["reason"] for e in first["events"]] == ["Scheduled", "Started"]
    assert first["next"] == 2
    rest = (
        await reader.get(f"/api/v1/workloads/{BERT}/events", params={**params, "offset": 2})
    ).json()
    assert [e["reason"] for e in rest["events"]] == ["BackOff"]


async def test_events_null_in_the_scenario_is_served_as_null(reader):
    response = await reader.get(f"/api/v1/workloads/{BERT2}/events")
    assert response.status_code == 200
    assert response.json() == {"events": None}


async def test_events_reject_a_bad_sort_order(reader):
    assert (
        await reader.get(f"/api/v1/workloads/{BERT}/events", params={"sortOrder": "x"})
    ).status_code == 400


async def test_history_is_served_in_file_order_with_paging(reader, scenario):
    records = scenario.workload(BERT).history
    first = (await reader.get(f"/api/v1/workloads/{BERT}/history", params={"limit": 2})).json()
    assert first == {"records": records[:2], "next": 2}
    second = (
        await reader.get(f"/api/v1/workloads/{BERT}/history", params={"offset": 2, "limit": 2})
    ).json()
    assert second == {"records": records[2:4], "next": 4}
    last = (
        await reader.get(f"/api/v1/workloads/{BERT}/history", params={"offset": 4, "limit": 2})
    ).json()
    assert last == {"records": records[4:]}
    everything = (await reader.get(f"/api/v1/workloads/{BERT}/history")).json()
    assert everything == {"records": records}


async def test_metrics_return_only_requested_types_within_the_window(reader):
    params = {
        "metricType": "CPU_MEMORY_USAGE_BYTES",
        "start": "2025-11-03T09:10:00Z",
        "end": "2025-11-03T09:30:00Z",
    }
    body = (await reader.get(METRICS, params=params)).json()
    assert body == {
        "measurements": [
            {
                "type": "CPU_MEMORY_USAGE_BYTES",
                "labels": None,
                "values": [
                    {"value": "6442450944", "timestamp": "2025-11-03T09:10:00Z"},
                    {"value": "15032385536", "timestamp": "2025-11-03T09:22:30Z"},
                ],
            }
        ]
    }


@pytest.mark.parametrize(
    "query",
    [
        "metricType=CPU_MEMORY_USAGE_BYTES,CPU_MEMORY_LIMIT_BYTES,GPU_UTILIZATION",
        "metricType=CPU_MEMORY_USAGE_BYTES&metricType=CPU_MEMORY_LIMIT_BYTES&metricType=GPU_UTILIZATION",
        "metricType=CPU_MEMORY_USAGE_BYTES%2CCPU_MEMORY_LIMIT_BYTES%2CGPU_UTILIZATION",
    ],
)
async def test_metric_types_comma_joined_or_repeated(reader, query):
    response = await reader.get(
        f"{METRICS}?{query}&start=2025-11-03T09:00:00Z&end=2025-11-03T09:40:00Z"
    )
    assert response.status_code == 200
    series = {m["type"]: m["values"] for m in response.json()["measurements"]}
    assert list(series) == ["CPU_MEMORY_USAGE_BYTES", "CPU_MEMORY_LIMIT_BYTES", "GPU_UTILIZATION"]
    assert len(series["CPU_MEMORY_USAGE_BYTES"]) == 3
    assert len(series["CPU_MEMORY_LIMIT_BYTES"]) == 2
    assert series["GPU_UTILIZATION"] == []  # requested but absent from the scenario


@pytest.mark.parametrize(
    ("params", "detail"),
    [
        (WINDOW, "metricType"),
        ({"metricType": "CPU_MEMORY_USAGE_BYTES", "end": WINDOW["end"]}, "start"),
        ({"metricType": "CPU_MEMORY_USAGE_BYTES", "start": WINDOW["start"]}, "end"),
        (
            {"metricType": "CPU_MEMORY_USAGE_BYTES", "start": "yesterday", "end": WINDOW["end"]},
            "start",
        ),
        ({"metricType": "MEMORY", **WINDOW}, "MEMORY"),
        (
            {
                "metricType": "CPU_MEMORY_USAGE_BYTES",
                "start": WINDOW["end"],
                "end": WINDOW["start"],
            },
            "start",
        ),
        (
            {"metricType": "CPU_MEMORY_USAGE_BYTES", **WINDOW, "numberOfSamples": 1001},
            "numberOfSamples",
        ),
        (
            {"metricType": "CPU_MEMORY_USAGE_BYTES", **WINDOW, "numberOfSamples": -1},
            "numberOfSamples",
        ),
    ],
)
async def test_metrics_validation_errors_are_400(reader, params, detail):
    response = await reader.get(METRICS, params=params)
    assert response.status_code == 400
    assert response.json()["code"] == 400
    assert detail in response.json()["details"]


async def test_metrics_accept_the_sample_bounds(reader):
    for samples in (0, 1000):
        params = {"metricType": "POD_COUNT", **WINDOW, "numberOfSamples": samples}
        assert (await reader.get(METRICS, params=params)).status_code == 200


async def test_clusters_is_a_bare_array(reader, scenario):
    response = await reader.get("/api/v1/clusters")
    assert response.json() == scenario.clusters
    assert isinstance(response.json(), list)


async def test_cluster_by_uuid(reader, scenario):
    assert (await reader.get(f"/api/v1/clusters/{CLUSTER}")).json() == scenario.clusters[0]
    missing = await reader.get("/api/v1/clusters/00000000-0000-4000-8000-000000000000")
    assert missing.status_code == 404
    assert missing.json()["code"] == 404


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({}, ["dgx-a100-07", "dgx-a100-08", "h100-01"]),
        ({"filterBy": f"clusterUuid=={CLUSTER}"}, ["dgx-a100-07", "dgx-a100-08"]),
        ({"filterBy": "status==NotReady"}, ["dgx-a100-08"]),
        ({"filterBy": "name==dgx-a100-07"}, ["dgx-a100-07"]),
        ({"filterBy": f"clusterUuid=={CLUSTER},name=$08"}, ["dgx-a100-08"]),
        ({"filterBy": "nodePool==h100"}, ["h100-01"]),
        ({"filterBy": "gpuType==A100"}, ["dgx-a100-07", "dgx-a100-08"]),
        ({"sortBy": "name", "sortOrder": "desc"}, ["h100-01", "dgx-a100-08", "dgx-a100-07"]),
        ({"limit": 1, "offset": 1}, ["dgx-a100-08"]),
    ],
)
async def test_nodes_filter_sort_page(reader, params, expected):
    body = (await reader.get("/api/v1/nodes", params=params)).json()
    assert set(body) == {"nodes"}  # the Nodes envelope has no `next`
    assert [node["name"] for node in body["nodes"]] == expected


@pytest.mark.parametrize("params", [{"filterBy": "phase==Ready"}, {"sortBy": "createdAt"}])
async def test_nodes_reject_undocumented_fields(reader, params):
    assert (await reader.get("/api/v1/nodes", params=params)).status_code == 400


async def test_unknown_path_is_404_and_wrong_method_is_405(reader):
    missing = await reader.get("/api/v1/projects")
    assert missing.status_code == 404
    assert missing.json()["code"] == 404
    wrong = await reader.delete(f"/api/v1/workloads/{BERT}")
    assert wrong.status_code == 405
    assert wrong.json()["code"] == 405
    assert (await reader.get("/api/v1/token")).status_code == 405
