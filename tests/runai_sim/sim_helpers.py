"""Constants and helpers shared by the simulator tests (ids of tests/runai_sim/data/basic.json)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from bot.app.backends import ASGI_BASE_URL
from runai_sim import Simulator

DATA = Path(__file__).parent / "data"
BASIC = DATA / "basic.json"

# Workload ids of tests/runai_sim/data/basic.json.
BERT = "3f1c2a9e-5b7d-4c1e-9a2f-8d6b0e4c7a11"
BERT2 = "7a4b2c1d-8e9f-4a0b-b1c2-d3e4f5a6b7c8"
VISION = "2b6d9f0e-1a3c-4e5f-8a7b-9c0d1e2f3a4b"
OLD = "8d1e2f3a-4b5c-4d6e-9f0a-1b2c3d4e5f60"
GEN_V2 = "5e7f9a1b-2c3d-4e5f-a6b7-c8d9e0f1a2b3"
CLUSTER = "71f69d83-ba66-4822-adf5-55ce55efd210"

CREDENTIALS = {"clientID": "runai-why-demo", "clientSecret": "demo-secret"}


async def fetch_token(client: httpx.AsyncClient) -> str:
    response = await client.post(
        "/api/v1/token", json={"grantType": "client_credentials", **CREDENTIALS}
    )
    assert response.status_code == 200, response.text
    return str(response.json()["accessToken"])


def names(body: dict[str, Any]) -> list[str]:
    return [item["name"] for item in body["workloads"]]


def asgi_client(sim: Simulator, base_url: str = ASGI_BASE_URL, **kwargs: Any) -> httpx.AsyncClient:
    """A client that reaches `sim` in-process through `httpx.ASGITransport` (no socket)."""
    transport = httpx.ASGITransport(app=sim.app)
    return httpx.AsyncClient(transport=transport, base_url=base_url, timeout=10, **kwargs)
