"""The benchmark's scenario: the bundled demo plus many failed workloads, moved to the present.

Each generated workload is a copy of the demo's `training-job-42` (OOM-killed, with Tier 2
pods, events and logs in the simulated Kubernetes API) under its own ID and name, with one
pod, so a thousand of them stay small enough to serve. The served bot reads the real clock,
so every timestamp is moved by (now - the scenario's `now`).
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.stats import shift_times
from bot.app.demo.scenarios import bundled_paths

__all__ = ["SOURCE_NAME", "BenchScenario", "generate"]

SOURCE_NAME = "training-job-42"
_SOURCE_POD = f"{SOURCE_NAME}-0-0"
#: History records kept per copy (the most recent; the demo lists them oldest first).
_HISTORY = 8
#: The demo user who may read every project (the askers' e-mail in the fake Slack).
ASKER_EMAIL = "bob@acme.ai"


@dataclass(frozen=True)
class BenchScenario:
    """A written scenario file and what the askers ask about."""

    path: Path
    cluster_name: str
    cluster_id: str
    source_id: str
    workload_ids: list[str]
    kube_token: str
    client_id: str
    client_secret: str

    def ask(self, workload_id: str) -> str:
        """The slash command text that asks about one workload by ID."""
        return f"why did {workload_id} fail on cluster {self.cluster_name}?"


def _demo(now: datetime) -> dict[str, Any]:
    """The bundled demo scenario, every timestamp moved so that its `now` is `now`."""
    [path] = [p for p in bundled_paths() if p.stem == "demo"]
    text = path.read_text(encoding="utf-8")
    scenario_now = datetime.fromisoformat(json.loads(text)["now"])
    data: dict[str, Any] = json.loads(shift_times(text, now - scenario_now))
    return data


def _clone(text: str, replacements: dict[str, str]) -> Any:
    for old, new in replacements.items():
        text = text.replace(old, new)
    return json.loads(text)


def generate(
    count: int, folder: Path, *, latency_ms: int, now: datetime | None = None
) -> BenchScenario:
    """Write `count` copies of the demo's OOM workload (plus the demo) into `folder`."""
    data = _demo(now or datetime.now(UTC))
    entry = next(w for w in data["workloads"] if w["workload"]["name"] == SOURCE_NAME)
    source_id = entry["workload"]["id"]
    kube = data["kubernetes"]
    pod = next(p for p in kube["pods"] if p["metadata"]["name"] == _SOURCE_POD)
    events = [e for e in kube["events"] if e["involvedObject"]["name"] == _SOURCE_POD]
    logs = {k: v for k, v in kube["logs"].items() if f"/{_SOURCE_POD}/" in k}
    owner_uid = pod["metadata"]["annotations"]["workloadId"]
    slim = {
        **entry,
        "pods": [p for p in entry["pods"] if p["name"] == _SOURCE_POD],
        "history": entry["history"][-_HISTORY:],
    }
    template = json.dumps({"entry": slim, "pod": pod, "events": events, "logs": logs})
    ids: list[str] = []
    for index in range(count):
        name = f"bench-{index:04d}"
        new_id = str(uuid.uuid5(uuid.NAMESPACE_URL, f"runai-why-bench/{index}"))
        copy = _clone(
            template,
            {
                source_id: new_id,
                owner_uid: str(uuid.uuid5(uuid.NAMESPACE_URL, f"runai-why-bench/pod/{index}")),
                pod["metadata"]["uid"]: str(uuid.uuid5(uuid.NAMESPACE_URL, f"bench/uid/{index}")),
                SOURCE_NAME: name,
            },
        )
        data["workloads"].append(copy["entry"])
        kube["pods"].append(copy["pod"])
        kube["events"].extend(copy["events"])
        kube["logs"].update(copy["logs"])
        ids.append(new_id)
    data["latency_ms"] = latency_ms
    data["name"] = f"bench ({count} failed workloads)"
    path = folder / "bench-scenario.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    cluster = data["clusters"][0]
    creds = data.get("credentials") or {}
    return BenchScenario(
        path=path,
        cluster_name=cluster["name"],
        cluster_id=cluster["uuid"],
        source_id=source_id,
        workload_ids=ids,
        kube_token=kube["token"],
        client_id=creds.get("client_id", "runai-why-demo"),
        client_secret=creds.get("client_secret", "demo-secret"),
    )
