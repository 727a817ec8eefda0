import pytest

from tests.runai_sim.sim_helpers import BERT, BERT2, CLUSTER, GEN_V2, OLD, VISION, names

# Live (not deleted) workloads of basic.json, in file order.
LIVE = ["bert-ft", "bert-ft-2", "vision-ws", "gen-v2"]


@pytest.mark.parametrize(
    ("filter_by", "expected"),
    [
        ("name==bert-ft", ["bert-ft"]),
        ("name!=bert-ft", ["bert-ft-2", "vision-ws", "gen-v2"]),
        ("name=@ft", ["bert-ft", "bert-ft-2"]),
        ("name!@ft", ["vision-ws", "gen-v2"]),
        ("name=^bert", ["bert-ft", "bert-ft-2"]),
        ("name=$-2", ["bert-ft-2"]),
        ("name<=bert-ft-2", ["bert-ft", "bert-ft-2"]),
        ("name>=gen", ["vision-ws", "gen-v2"]),
        ("phase==Failed", ["bert-ft", "gen-v2"]),
        ("type==Workspace", ["vision-ws"]),
        (f"clusterId=={CLUSTER}", LIVE),
        ("projectName==nlp,phase==Failed", ["bert-ft"]),
        ("projectName==nlp,name==bert-ft", ["bert-ft"]),
        ("allocatedGPU>=2", ["gen-v2"]),
        ("allocatedGPU<=1", ["bert-ft", "bert-ft-2", "vision-ws"]),
        ("priority>=60", ["vision-ws"]),
        ("priority==50", ["bert-ft", "gen-v2"]),
        ("priority!=50", ["bert-ft-2", "vision-ws"]),
        ("nodepool==a100", ["vision-ws"]),
        ("nodepool!=a100", ["bert-ft", "bert-ft-2", "gen-v2"]),
        ("completedAt!=2025-11-03T09:31:38Z", ["bert-ft-2", "vision-ws", "gen-v2"]),
        ("createdAt>=2025-11-03T09:00:00Z", ["bert-ft", "bert-ft-2"]),
        ("createdAt<=2025-11-03T08:00:00Z", ["vision-ws", "gen-v2"]),
        ("createdAt==2025-11-03T10:12:04+01:00", ["bert-ft"]),
        ("phaseUpdatedAt>=2025-11-03", ["bert-ft", "bert-ft-2", "gen-v2"]),
        ("name==nothing", []),
    ],
)
async def test_filter_by(reader, filter_by, expected):
    response = await reader.get("/api/v1/workloads", params={"filterBy": filter_by})
    assert response.status_code == 200, response.text
    assert names(response.json()) == expected


async def test_filter_by_is_url_decoded_when_percent_encoded(reader):
    # Generated runapy percent-encodes `=` and `,` inside the value.
    response = await reader.get(
        "/api/v1/workloads?filterBy=name%3D%3Dbert-ft%2CprojectName%3D%3Dnlp"
    )
    assert names(response.json()) == ["bert-ft"]


async def test_repeated_filter_by_keys_are_and_combined(reader):
    response = await reader.get(
        "/api/v1/workloads",
        params=[("filterBy", "projectName==nlp"), ("filterBy", "phase==Running")],
    )
    assert names(response.json()) == ["bert-ft-2"]


async def test_exact_name_match_is_not_a_prefix_match(reader):
    response = await reader.get("/api/v1/workloads", params={"filterBy": "name==bert"})
    assert names(response.json()) == []


@pytest.mark.parametrize(
    "filter_by",
    [
        "id==3f1c2a9e-5b7d-4c1e-9a2f-8d6b0e4c7a11",  # not a documented filter field
        "namespace==runai-nlp",
        "k8sPhase==Failed",
        "phase~Failed",  # unknown operator
        "name==",  # empty value
        "createdAt=@2025",  # dates take only ==, !=, <=, >=
        "createdAt>=yesterday",
        "allocatedGPU>=many",
    ],
)
async def test_invalid_filters_are_400(reader, filter_by):
    response = await reader.get("/api/v1/workloads", params={"filterBy": filter_by})
    assert response.status_code == 400
    assert response.json()["code"] == 400
    assert response.json()["details"]


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"sortBy": "name"}, ["bert-ft", "bert-ft-2", "gen-v2", "vision-ws"]),
        ({"sortBy": "name", "sortOrder": "desc"}, ["vision-ws", "gen-v2", "bert-ft-2", "bert-ft"]),
        (
            {"sortBy": "phaseUpdatedAt", "sortOrder": "desc"},
            ["bert-ft", "bert-ft-2", "gen-v2", "vision-ws"],
        ),
        ({"sortBy": "createdAt"}, ["vision-ws", "gen-v2", "bert-ft", "bert-ft-2"]),
        (
            {"sortBy": "allocatedGPU", "sortOrder": "desc"},
            ["gen-v2", "bert-ft", "bert-ft-2", "vision-ws"],
        ),
        # Nulls last ascending, first descending (bert-ft-2 has priority null).
        ({"sortBy": "priority"}, ["bert-ft", "gen-v2", "vision-ws", "bert-ft-2"]),
        (
            {"sortBy": "priority", "sortOrder": "desc"},
            ["bert-ft-2", "vision-ws", "bert-ft", "gen-v2"],
        ),
    ],
)
async def test_sort(reader, params, expected):
    response = await reader.get("/api/v1/workloads", params=params)
    assert names(response.json()) == expected


@pytest.mark.parametrize(
    "params",
    [
        {"sortBy": "id"},
        {"sortBy": "name", "sortOrder": "up"},
        {"limit": "0"},
        {"limit": "501"},
        {"limit": "ten"},
        {"offset": "-1"},
        {"deleted": "maybe"},
    ],
)
async def test_invalid_list_parameters_are_400(reader, params):
    response = await reader.get("/api/v1/workloads", params=params)
    assert response.status_code == 400
    assert response.json()["code"] == 400


async def test_pagination_follows_next_until_it_is_absent(reader):
    seen: list[str] = []
    params = {"sortBy": "name", "limit": "3"}
    first = (await reader.get("/api/v1/workloads", params=params)).json()
    assert first["next"] == 3
    seen += names(first)
    second = (
        await reader.get("/api/v1/workloads", params={**params, "offset": first["next"]})
    ).json()
    assert "next" not in second
    seen += names(second)
    assert seen == ["bert-ft", "bert-ft-2", "gen-v2", "vision-ws"]


async def test_exactly_full_last_page_has_no_next(reader):
    body = (await reader.get("/api/v1/workloads", params={"limit": "4"})).json()
    assert len(body["workloads"]) == 4
    assert "next" not in body


async def test_default_limit_is_50_and_offset_past_the_end_is_empty(reader):
    body = (await reader.get("/api/v1/workloads", params={"offset": "10"})).json()
    assert body == {"workloads": []}


async def test_deleted_true_returns_only_deleted_workloads(reader):
    deleted = (await reader.get("/api/v1/workloads", params={"deleted": "true"})).json()
    assert names(deleted) == ["old-job"]
    default = (await reader.get("/api/v1/workloads")).json()
    assert names(default) == LIVE
    assert (
        names((await reader.get("/api/v1/workloads", params={"deleted": "false"})).json()) == LIVE
    )


async def test_count_uses_the_same_filters(reader):
    assert (await reader.get("/api/v1/workloads/count")).json() == {"count": 4}
    filtered = await reader.get("/api/v1/workloads/count", params={"filterBy": "projectName==nlp"})
    assert filtered.json() == {"count": 2}
    assert (await reader.get("/api/v1/workloads/count", params={"deleted": "true"})).json() == {
        "count": 1
    }
    assert (
        await reader.get("/api/v1/workloads/count", params={"filterBy": "bogus==1"})
    ).status_code == 400


async def test_search_is_a_case_insensitive_name_match(reader):
    body = (await reader.get("/api/v1/workloads", params={"search": "BERT"})).json()
    assert names(body) == ["bert-ft", "bert-ft-2"]


async def test_list_items_are_the_detail_bodies_without_pending_scheduling_messages(
    reader, scenario
):
    body = (await reader.get("/api/v1/workloads", params={"filterBy": "name==vision-ws"})).json()
    (item,) = body["workloads"]
    detail = scenario.workload(VISION).workload
    assert "pendingSchedulingMessages" not in item
    assert item == {k: v for k, v in detail.items() if k != "pendingSchedulingMessages"}


async def test_get_workload_serves_the_detail_body(reader, scenario):
    response = await reader.get(f"/api/v1/workloads/{VISION}")
    assert response.status_code == 200
    assert response.json() == scenario.workload(VISION).workload
    assert response.json()["pendingSchedulingMessages"][0]["phaseReason"] == "OverLimit"


async def test_unknown_workload_is_404_with_error_body(reader):
    response = await reader.get("/api/v1/workloads/00000000-0000-4000-8000-000000000000")
    assert response.status_code == 404
    assert response.json()["code"] == 404
    assert response.json()["message"] == "Resource id not found."


SPEC_KINDS = ["trainings", "workspaces", "inferences", "distributed", "distributed-inferences"]


@pytest.mark.parametrize(
    ("workload_id", "served_at"),
    [
        (BERT, "/api/v1/workloads/trainings/"),
        (VISION, "/api/v1/workloads/workspaces/"),
        (GEN_V2, "/api/v2/workloads/"),
    ],
)
async def test_spec_is_served_only_at_the_kind_path(reader, scenario, workload_id, served_at):
    paths = [f"/api/v1/workloads/{kind}/" for kind in SPEC_KINDS] + ["/api/v2/workloads/"]
    for path in paths:
        response = await reader.get(path + workload_id)
        if path == served_at:
            assert response.status_code == 200
            assert response.json() == scenario.workload(workload_id).spec
        else:
            assert response.status_code == 404, path
            assert response.json()["message"] == "Resource id not found."


async def test_null_spec_is_404_everywhere(reader):
    assert (await reader.get(f"/api/v1/workloads/trainings/{OLD}")).status_code == 404


async def test_spec_of_an_unknown_workload_is_404(reader):
    assert (await reader.get("/api/v1/workloads/trainings/nope")).status_code == 404


async def test_detail_of_a_second_training(reader):
    response = await reader.get(f"/api/v1/workloads/{BERT2}")
    assert response.json()["name"] == "bert-ft-2"
