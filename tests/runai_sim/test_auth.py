import base64
import json

import pytest

from runai_sim import Credentials, Simulator
from tests.runai_sim.sim_helpers import BERT, CREDENTIALS, asgi_client, fetch_token


def jwt_claims(token: str) -> dict:
    header, payload, signature = token.split(".")
    assert header
    assert payload
    assert signature
    decoded_header = json.loads(base64.urlsafe_b64decode(header + "=" * (-len(header) % 4)))
    assert decoded_header["typ"] == "JWT"
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


class FakeClock:
    def __init__(self, now: float = 1_750_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize(
    "body",
    [
        {
            "grantType": "client_credentials",
            "clientID": "runai-why-demo",
            "clientSecret": "demo-secret",
        },
        {
            "grantType": "client_credentials",
            "clientId": "runai-why-demo",
            "clientSecret": "demo-secret",
        },
        {
            "granttype": "client_credentials",
            "CLIENTID": "runai-why-demo",
            "ClientSecret": "demo-secret",
        },
    ],
)
async def test_v1_token_accepts_any_key_casing(anon, body):
    response = await anon.post("/api/v1/token", json=body)
    assert response.status_code == 200
    token = response.json()
    assert set(token) == {"accessToken", "idToken", "refreshToken", "expiresIn"}
    assert token["expiresIn"] == 3600
    claims = jwt_claims(token["accessToken"])
    assert claims["sub"] == "runai-why-demo"
    assert claims["exp"] - claims["iat"] == 3600


async def test_v1_token_rejects_a_wrong_secret_with_401(anon):
    body = {**CREDENTIALS, "grantType": "client_credentials", "clientSecret": "wrong"}
    response = await anon.post("/api/v1/token", json=body)
    assert response.status_code == 401
    assert response.json()["code"] == 401
    assert response.json()["message"] == "Issuer is not familiar."


@pytest.mark.parametrize(
    "body",
    [
        {"grantType": "app_token", "appID": "runai-why-demo", "appSecret": "demo-secret"},
        {"clientID": "runai-why-demo", "clientSecret": "demo-secret"},
        ["not", "an", "object"],
    ],
)
async def test_v1_token_bad_requests_are_400(anon, body):
    response = await anon.post("/api/v1/token", json=body)
    assert response.status_code == 400
    assert response.json()["code"] == 400


async def test_v2_token_is_oauth2_form_encoded(anon):
    form = {
        "grant_type": "client_credentials",
        "client_id": "runai-why-demo",
        "client_secret": "demo-secret",
    }
    response = await anon.post("/api/v2/token", data=form)
    assert response.status_code == 200
    body = response.json()
    assert body["token_type"] == "Bearer"
    assert body["expires_in"] == 3600
    assert jwt_claims(body["access_token"])["sub"] == "runai-why-demo"
    listed = await anon.get(
        "/api/v1/workloads", headers={"Authorization": f"Bearer {body['access_token']}"}
    )
    assert listed.status_code == 200


@pytest.mark.parametrize(
    ("form", "status", "error"),
    [
        (
            {
                "grant_type": "client_credentials",
                "client_id": "runai-why-demo",
                "client_secret": "x",
            },
            401,
            "invalid_client",
        ),
        (
            {
                "grant_type": "client_credentials",
                "client_id": "someone",
                "client_secret": "demo-secret",
            },
            401,
            "invalid_client",
        ),
        (
            {"grant_type": "password", "username": "u", "password": "p"},
            400,
            "unsupported_grant_type",
        ),
        ({"client_id": "runai-why-demo"}, 400, "invalid_request"),
    ],
)
async def test_v2_token_errors_are_oauth2_errors(anon, form, status, error):
    response = await anon.post("/api/v2/token", data=form)
    assert response.status_code == status
    assert response.json()["error"] == error
    assert response.json()["error_description"]


async def test_v2_token_requires_a_form_body(anon):
    response = await anon.post("/api/v2/token", json={"grant_type": "client_credentials"})
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_request"


async def test_scenario_credentials_replace_the_defaults(scenario):
    custom = scenario.model_copy(
        update={"credentials": Credentials(client_id="me", client_secret="pw")}
    )
    async with asgi_client(Simulator(custom)) as client:
        default = await client.post(
            "/api/v1/token", json={"grantType": "client_credentials", **CREDENTIALS}
        )
        assert default.status_code == 401
        mine = await client.post(
            "/api/v1/token",
            json={"grantType": "client_credentials", "clientID": "me", "clientSecret": "pw"},
        )
        assert mine.status_code == 200


@pytest.mark.parametrize(
    "authorization",
    [
        None,
        "",
        "Basic cnVuYWk6ZGVtbw==",
        "Bearer",
        "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJydW5haS13aHktZGVtbyIsImV4cCI6OTk5OTk5OTk5OX0.c2ln",
    ],
)
async def test_every_api_endpoint_requires_an_issued_token(anon, authorization):
    headers = {} if authorization is None else {"Authorization": authorization}
    for path in [
        "/api/v1/workloads",
        f"/api/v1/workloads/{BERT}",
        "/api/v1/clusters",
        "/api/v1/nodes",
    ]:
        response = await anon.get(path, headers=headers)
        assert response.status_code == 401, path
        assert response.json()["message"] == "Issuer is not familiar."
        assert response.headers["www-authenticate"] == "Bearer"


async def test_unknown_paths_also_need_a_token_first(anon):
    assert (await anon.get("/api/v1/nothing-here")).status_code == 401


async def test_expired_tokens_are_refused_and_a_new_one_works(scenario):
    clock = FakeClock()
    sim = Simulator(scenario, token_ttl_s=120, clock=clock)
    async with asgi_client(sim) as client:
        token = await fetch_token(client)
        assert jwt_claims(token)["exp"] == int(clock.now) + 120
        auth = {"Authorization": f"Bearer {token}"}
        assert (await client.get("/api/v1/clusters", headers=auth)).status_code == 200
        clock.now += 119
        assert (await client.get("/api/v1/clusters", headers=auth)).status_code == 200
        clock.now += 1
        expired = await client.get("/api/v1/clusters", headers=auth)
        assert expired.status_code == 401
        assert expired.json()["details"] == "Token has expired."
        fresh = {"Authorization": f"Bearer {await fetch_token(client)}"}
        assert (await client.get("/api/v1/clusters", headers=fresh)).status_code == 200


async def test_expires_in_reports_the_configured_ttl(scenario):
    async with asgi_client(Simulator(scenario, token_ttl_s=90)) as client:
        body = {"grantType": "client_credentials", **CREDENTIALS}
        assert (await client.post("/api/v1/token", json=body)).json()["expiresIn"] == 90


async def test_revoke_tokens_gives_401_until_the_client_re_authenticates(sim, client):
    assert (await client.get("/api/v1/clusters")).status_code == 200
    sim.revoke_tokens()
    assert (await client.get("/api/v1/clusters")).status_code == 401
    client.headers["Authorization"] = f"Bearer {await fetch_token(client)}"
    assert (await client.get("/api/v1/clusters")).status_code == 200


async def test_a_token_of_another_simulator_is_refused(scenario, client):
    other = Simulator(scenario)
    foreign = other.issue_token("runai-why-demo")
    response = await client.get("/api/v1/clusters", headers={"Authorization": f"Bearer {foreign}"})
    assert response.status_code == 401


@pytest.mark.parametrize("client_id", ["démo", "runai-why-demo\u202e", "🔑"])
async def test_non_ascii_credentials_are_refused_not_a_server_error(anon, client_id):
    """A non-ASCII client id must be a 401 (hmac.compare_digest refuses non-ASCII str)."""
    body = {"grantType": "client_credentials", "clientID": client_id, "clientSecret": "demo-secret"}
    response = await anon.post("/api/v1/token", json=body)
    assert response.status_code == 401
