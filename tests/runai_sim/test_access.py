"""The simulated access model: access rules, users, roles, projects and departments.

Every body the simulator serves is validated against the 2.24 schemas of those endpoints,
read from NVIDIA's OpenAPI bundle where it is kept: `$RUNAI_OPENAPI_SCHEMA`, or
`../shared/reference/runai-openapi-2.24-subset.json` beside the repository (as in CI). The
bundle is not ours to ship, so without it only the schema checks are skipped, saying why.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from openapi_schema_validator import OAS30Validator

import runai_sim
from runai_sim import Scenario, Simulator
from runai_sim.access import BUILTIN_ROLES, OPEN_RULE_ROLE_ID
from runai_sim.scenario import ScenarioError
from tests.runai_sim.sim_helpers import BASIC, DATA, asgi_client, fetch_token

ACCESS = DATA / "access.json"
DEMO = Path(runai_sim.__file__).parent / "scenarios" / "demo.json"
BUNDLE = Path(
    os.environ.get("RUNAI_OPENAPI_SCHEMA")
    or Path(__file__).resolve().parents[3] / "shared/reference/runai-openapi-2.24-subset.json"
)
needs_bundle = pytest.mark.skipif(
    not BUNDLE.is_file(), reason=f"the Run:ai OpenAPI bundle is not at {BUNDLE}"
)
CLUSTER_A = "2b7c3d1e-9f4a-4c58-a1d6-5e8f0b3c7d92"

RULES = "/api/v1/authorization/access-rules"
USERS = "/api/v1/users"
ROLES = "/api/v1/authorization/roles"
PROJECTS = "/api/v1/org-unit/projects"
DEPARTMENTS = "/api/v1/org-unit/departments"
#: Served path -> the path of the OpenAPI operation whose 200 body it must match.
OPERATIONS = {
    RULES: RULES,
    USERS: USERS,
    ROLES: ROLES,
    f"{ROLES}/2": f"{ROLES}/{{roleIdPath}}",
    PROJECTS: PROJECTS,
    DEPARTMENTS: DEPARTMENTS,
}


@functools.cache
def _bundle() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(BUNDLE.read_text(encoding="utf-8"))
    return loaded


def schema_errors(operation: str, body: Any) -> list[str]:
    """Why `body` is not a 200 body of `GET <operation>` (empty when it is)."""
    bundle = _bundle()
    content = bundle["paths"][operation]["get"]["responses"]["200"]["content"]
    schema = {**content["application/json"]["schema"], "components": bundle["components"]}
    validator = OAS30Validator(schema)
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(body)]


async def authed(sim: Simulator) -> AsyncIterator[httpx.AsyncClient]:
    async with asgi_client(sim) as client:
        client.headers["Authorization"] = f"Bearer {await fetch_token(client)}"
        yield client


@pytest.fixture
async def access() -> AsyncIterator[httpx.AsyncClient]:
    async for client in authed(Simulator(Scenario.load(ACCESS))):
        yield client


@pytest.fixture
async def open_model() -> AsyncIterator[httpx.AsyncClient]:
    """A scenario without an access model (basic.json)."""
    async for client in authed(Simulator(Scenario.load(BASIC))):
        yield client


async def get(client: httpx.AsyncClient, path: str, **params: Any) -> Any:
    response = await client.get(path, params=params)
    assert response.status_code == 200, response.text
    return response.json()


# ---------------------------------------------------------------- the official shapes


@pytest.mark.parametrize("path", OPERATIONS)
@pytest.mark.parametrize(
    "scenario", [ACCESS, BASIC, DEMO], ids=["access-model", "no-access-model", "demo"]
)
@needs_bundle
async def test_every_body_matches_the_schema(path, scenario):
    params = {"subjectType": "user", "subjectIds": "alice@acme.ai"} if path == RULES else {}
    async for client in authed(Simulator(Scenario.load(scenario))):
        body = await get(client, path, **params)
    assert body or (scenario, path) == (BASIC, USERS), "an empty body proves nothing"
    assert schema_errors(OPERATIONS[path], body) == []


@needs_bundle
def test_the_schema_check_catches_a_wrong_body():
    body = {"totalRecords": 1, "displayRecords": 1, "accessRules": [{"subjectId": "a@b.c"}]}
    errors = schema_errors(RULES, body)
    assert any("roleId" in e for e in errors), errors
    assert schema_errors(USERS, {"users": []}) != []  # a bare array, not an envelope


# ---------------------------------------------------------------- access rules


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({}, [1, 2, 3, 4, 5, 7]),
        ({"includeDeleted": "true"}, [1, 2, 3, 4, 5, 6, 7]),
        ({"subjectType": "user"}, [1, 3, 5]),
        ({"subjectType": "group"}, [2, 4, 7]),
        ({"subjectType": "user", "subjectIds": "alice@acme.ai"}, [3]),
        ({"subjectType": "group", "subjectIds": "research-team,platform"}, [2, 4]),
        ({"subjectIds": ["research-team", "bob@acme.ai"]}, [1, 2]),
        ({"subjectType": "group", "subjectIds": "alice@acme.ai"}, []),
        ({"filterBy": "scopeType==department"}, [2]),
        ({"filterBy": "roleName=@viewer"}, [3]),
        ({"filterBy": "roleName=^Viewer,subjectType==user"}, [1, 5]),
        ({"filterBy": "roleId==2"}, [1, 2, 5]),
        ({"filterBy": "phase==Ready"}, [1, 2, 3, 4, 5, 7]),
        ({"filterBy": "subjectId=$acme.ai"}, [1, 3, 5]),
        ({"scopeId": "p-ml"}, [3]),
        ({"clusterId": CLUSTER_A}, [2, 3, 4]),
        ({"sortBy": "subjectId", "sortOrder": "desc"}, [2, 4, 5, 1, 7, 3]),
    ],
    ids=lambda v: json.dumps(v, sort_keys=True) if isinstance(v, dict) else None,
)
async def test_access_rules_filters(access, params, expected):
    body = await get(access, RULES, **params)
    assert [r["id"] for r in body["accessRules"]] == expected
    assert body["totalRecords"] == body["displayRecords"] == len(expected)


async def test_access_rules_page_by_offset_and_limit_and_count_every_record(access):
    first = await get(access, RULES, limit=4)
    second = await get(access, RULES, limit=4, offset=4)
    assert [r["id"] for r in first["accessRules"]] == [1, 2, 3, 4]
    assert [r["id"] for r in second["accessRules"]] == [5, 7]
    assert (first["totalRecords"], first["displayRecords"]) == (6, 4)
    assert (second["totalRecords"], second["displayRecords"]) == (6, 2)
    assert "next" not in first  # this endpoint's envelope has none


@pytest.mark.parametrize(
    ("path", "params"),
    [
        (RULES, {"filterBy": "name==x"}),
        (RULES, {"limit": "0"}),
        (RULES, {"limit": "501"}),
        (RULES, {"includeDeleted": "maybe"}),
        (USERS, {"filterBy": "username!=alice@acme.ai"}),
        (USERS, {"filterBy": "groups==x"}),
        (PROJECTS, {"filterBy": "namespace==runai-nlp"}),
        (PROJECTS, {"sortBy": "nothing"}),
        (DEPARTMENTS, {"verbosity": "loud"}),
        (DEPARTMENTS, {"filterBy": "parentId==d-research"}),
    ],
)
async def test_bad_queries_are_400(access, path, params):
    response = await access.get(path, params=params)
    assert response.status_code == 400, response.text
    assert response.json()["code"] == 400


# ---------------------------------------------------------------- users and roles


@pytest.mark.parametrize(
    ("filter_by", "expected"),
    [
        (None, ["alice@acme.ai", "bob@acme.ai", "carol@acme.ai", "dave@partner.example"]),
        ("username==alice@acme.ai", ["alice@acme.ai"]),
        ("username==nobody@acme.ai", []),
        ("username=@acme", ["alice@acme.ai", "bob@acme.ai", "carol@acme.ai"]),
        ("isLocal==true", ["carol@acme.ai"]),
        ("username=@acme,isLocal==false", ["alice@acme.ai", "bob@acme.ai"]),
        (
            "lastLogin>=2025-11-01T08:00:00Z",
            ["alice@acme.ai", "bob@acme.ai", "carol@acme.ai", "dave@partner.example"],
        ),
    ],
)
async def test_users_filter_by(access, filter_by, expected):
    params = {} if filter_by is None else {"filterBy": filter_by}
    body = await get(access, USERS, **params)
    assert [u["username"] for u in body] == expected


async def test_users_page_with_a_default_limit_of_500(access):
    assert [u["username"] for u in await get(access, USERS, offset=1, limit=2)] == [
        "bob@acme.ai",
        "carol@acme.ai",
    ]
    groups = {u["username"]: u["groups"] for u in await get(access, USERS)}
    assert groups["alice@acme.ai"] == ["research-team"]
    assert groups["dave@partner.example"] is None  # nullable in the schema


async def test_roles_are_listed_and_fetched_by_id(access):
    roles = await get(access, ROLES)
    assert [r["name"] for r in roles][:2] == ["System administrator", "Viewer"]
    assert (await get(access, f"{ROLES}/3"))["name"] == "Training viewer"
    missing = await access.get(f"{ROLES}/99")
    assert missing.status_code == 404


# ---------------------------------------------------------------- projects and departments


@pytest.mark.parametrize(
    ("filter_by", "expected"),
    [
        (None, ["p-nlp-a", "p-vision", "p-ml", "p-nlp-b"]),
        ("name==nlp", ["p-nlp-a", "p-nlp-b"]),
        (f"name==nlp,clusterId=={CLUSTER_A}", ["p-nlp-a"]),
        ("parentId==d-research", ["p-nlp-a", "p-vision"]),
        ("departmentId==d-platform", ["p-ml"]),
        ("parentName==research", ["p-nlp-a", "p-vision", "p-nlp-b"]),
        ("phase==Ready", ["p-nlp-a", "p-vision", "p-ml", "p-nlp-b"]),
        ("totalGpuQuota>=8", ["p-nlp-a", "p-vision", "p-ml", "p-nlp-b"]),
        ("avgGpuUtilization7d>=0", []),
    ],
)
async def test_projects_filter_by(access, filter_by, expected):
    params = {} if filter_by is None else {"filterBy": filter_by}
    body = await get(access, PROJECTS, **params)
    assert [p["id"] for p in body["projects"]] == expected


async def test_projects_and_departments_page_with_next(access):
    first = await get(access, PROJECTS, limit=3)
    assert (len(first["projects"]), first["next"]) == (3, 3)
    last = await get(access, PROJECTS, limit=3, offset=3)
    assert [p["id"] for p in last["projects"]] == ["p-nlp-b"]
    assert "next" not in last
    departments = await get(access, DEPARTMENTS, filterBy=f"clusterId=={CLUSTER_A}")
    assert [d["id"] for d in departments["departments"]] == ["d-research", "d-platform"]


# ---------------------------------------------------------------- no access model


async def test_without_an_access_model_every_user_gets_a_tenant_wide_viewer_rule(open_model):
    asked = "anyone@example.com,someone@example.org"
    body = await get(open_model, RULES, subjectType="user", subjectIds=asked)
    rules = body["accessRules"]
    assert [r["subjectId"] for r in rules] == asked.split(",")
    assert {(r["scopeType"], r["roleId"]) for r in rules} == {("tenant", OPEN_RULE_ROLE_ID)}
    viewer = next(r for r in await get(open_model, ROLES) if r["id"] == OPEN_RULE_ROLE_ID)
    assert {"resourceType": "workloads", "actions": ["read"]}.items() <= next(
        p for p in viewer["permissions"] if p["resourceType"] == "workloads"
    ).items()
    assert (await get(open_model, RULES, subjectType="group", subjectIds="g"))["accessRules"] == []
    assert await get(open_model, USERS) == []


async def test_without_an_access_model_projects_and_departments_come_from_the_workloads(
    open_model,
):
    workloads = (await get(open_model, "/api/v1/workloads", limit=500))["workloads"]
    expected = {(w["projectId"], w["projectName"], w["departmentId"]) for w in workloads}
    projects = (await get(open_model, PROJECTS))["projects"]
    assert {(p["id"], p["name"], p["parentId"]) for p in projects} >= expected
    departments = (await get(open_model, DEPARTMENTS))["departments"]
    children = {c["id"] for d in departments for c in d["children"]}
    assert children == {p["id"] for p in projects}
    assert await get(open_model, ROLES) == BUILTIN_ROLES


async def test_projects_without_a_parent_make_no_department():
    data = json.loads(BASIC.read_text(encoding="utf-8"))
    data["projects"] = [{"id": "p-1", "name": "solo", "clusterId": "c", "parent": None}]
    async for client in authed(Simulator(Scenario.parse(data))):
        assert [p["id"] for p in (await get(client, PROJECTS))["projects"]] == ["p-1"]
        assert (await get(client, DEPARTMENTS))["departments"] == []


def test_access_items_missing_their_key_members_are_named(tmp_path):
    data = json.loads(ACCESS.read_text(encoding="utf-8"))
    del data["access_rules"][0]["roleId"]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"access_rules.*\[0\] lacks roleId"):
        Scenario.load(path)
