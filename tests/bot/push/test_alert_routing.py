"""From an alert to a workload and a channel, by reading the (simulated) control plane."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from bot.alerts.resolver import AlertRouting, channel_target
from bot.app.backends import simulated
from bot.ops.metrics import ALERTS_UNMAPPED
from bot.push import PENDING, AlertSpec, MemoryKv, Target
from tests.bot.push.scenes import DEMO, OOM_ID

CLUSTER = "2b7c3d1e-9f4a-4c58-a1d6-5e8f0b3c7d92"


async def _team() -> str:
    return "T1"


NLP_ROOM = Target(
    platform="teams",
    team="tenant-acme",
    channel="19:nlp@thread.tacv2",
    service_url="https://smba.example/emea/",
)


async def _teams_target(channel: str) -> Target | None:
    return NLP_ROOM if channel == NLP_ROOM.channel else None


@pytest.fixture
async def routing() -> AsyncIterator[AlertRouting]:
    async with simulated(DEMO, transport="asgi") as up:
        channels = {
            "prod-a/ml-team": "C1",
            f"{CLUSTER}/nlp": "19:nlp@thread.tacv2",
            "prod-a/vision": "19:vision@thread.tacv2",
        }
        yield AlertRouting(
            up.runai, MemoryKv(), channels=channels, slack_team=_team, teams_target=_teams_target
        )


def _alert(**labels: Any) -> AlertSpec:
    base = {"fingerprint": "f", "starts_at": "s", "status": "firing", "cluster": "prod-a"}
    return AlertSpec.model_validate(base | {"project": "ml-team"} | labels)


@pytest.mark.parametrize(
    "labels",
    [
        pytest.param({"pod": "training-job-42-0-1"}, id="a pod the workload lists"),
        pytest.param({"workload_id": OOM_ID}, id="the workload UUID label"),
        pytest.param({"workload_name": "training-job-42"}, id="the workload name label"),
        pytest.param({"pod": "training-job-42-0-0", "cluster": CLUSTER}, id="the cluster by ID"),
    ],
)
async def test_an_alert_maps_to_its_workload_and_channel(
    routing: AlertRouting, labels: dict[str, str]
):
    spec = await routing.resolve(_alert(**labels))
    assert spec is not None
    assert spec.workload_ids == (OOM_ID,)
    assert (spec.cluster_id, spec.cluster_name, spec.project) == (CLUSTER, "prod-a", "ml-team")
    assert spec.target == Target(platform="slack", team="T1", channel="C1")
    assert (spec.source, spec.alert_key) == ("alert", "f:s")


@pytest.mark.parametrize(
    ("labels", "reason"),
    [
        pytest.param({"cluster": "prod-z", "pod": "training-job-42-0-0"}, "unknown_cluster"),
        pytest.param({"project": "research", "pod": "yolo-train-v3-0-0"}, "no_channel"),
        # a Teams conversation with no watch: the bot has no address for it
        pytest.param({"project": "vision", "pod": "yolo-train-v3-0-0"}, "teams_without_watch"),
        # a name that only looks like a pod of the workload: no workload lists it
        pytest.param({"pod": "training-job-42-0-9"}, "no_workload", id="an unlisted pod"),
        pytest.param({"pod": "training-job-4"}, "no_workload", id="a prefix of a name"),
        pytest.param({"workload_id": "00000000-0000-4000-8000-000000000009"}, "no_workload"),
        pytest.param(
            {"workload_id": "9986fe4c-c3a0-43ae-8623-7c10195e6a3f"},
            "no_workload",
            id="another project's id",
        ),
        pytest.param({"workload_name": "no-such-job"}, "no_workload"),
        # queued before the webhook checked names: never sent in a filter
        pytest.param({"workload_name": "training-job-42,name==x"}, "no_workload", id="bad name"),
        pytest.param(
            {"project": "ml-team,projectName==nlp", "pod": "training-job-42-0-0"},
            "no_channel",
            id="bad project",
        ),
        pytest.param({}, "no_workload", id="no workload label at all"),
    ],
)
async def test_an_alert_that_maps_to_nothing_is_counted_never_guessed(
    routing: AlertRouting, labels: dict[str, str], reason: str
):
    before = ALERTS_UNMAPPED.labels(reason=reason)._value.get()
    assert await routing.resolve(_alert(**labels)) is None
    assert ALERTS_UNMAPPED.labels(reason=reason)._value.get() == before + 1


async def test_a_teams_conversation_is_posted_to_as_its_watch_keeps_it(routing: AlertRouting):
    spec = await routing.resolve(_alert(project="nlp", workload_name="bert-ft-squad"))
    assert spec is not None
    assert spec.target == NLP_ROOM  # its tenant too: the thread's key, which buttons look up


@pytest.mark.parametrize(
    ("channel", "target"),
    [
        ("C0123", Target(platform="slack", team="T9", channel="C0123")),
        ("19:abc@thread.tacv2", Target(platform="teams", channel="19:abc@thread.tacv2")),
        ("a:1xyz", Target(platform="teams", channel="a:1xyz")),
        ("console", Target(platform="console", team="local", channel="console")),
    ],
)
def test_channel_target(channel: str, target: Target):
    assert channel_target(channel, "T9") == target


async def test_the_thread_of_an_alert_is_remembered(routing: AlertRouting):
    alert = _alert()
    assert await routing.thread_of(alert) is None
    await routing.started(alert.key)
    assert await routing.thread_of(alert) == PENDING
    await routing.dropped(alert.key)
    assert await routing.thread_of(alert) is None
    await routing.started(alert.key)
    target = Target(platform="slack", team="T1", channel="C1")
    await routing.posted(alert.key, target, "1.5")
    assert await routing.thread_of(alert) == (target, "1.5")
    await routing.dropped(alert.key)  # posted: kept
    assert await routing.thread_of(alert) == (target, "1.5")


class _Elsewhere:
    """A reader whose answers name a workload of another project than the one asked about."""

    def __init__(self, runai: Any) -> None:
        self._runai = runai

    def __getattr__(self, name: str) -> Any:
        return getattr(self._runai, name)

    async def list_workloads(self, *, cluster_id: str, project: str, name: str) -> list[Any]:
        del project
        return await self._runai.list_workloads(cluster_id=cluster_id, project="nlp", name=name)


async def test_a_workload_found_in_another_project_is_not_the_alert_s():
    """Whatever the reader answers, the workload must be on the alert's cluster and project."""
    async with simulated(DEMO, transport="asgi") as up:
        routing = AlertRouting(_Elsewhere(up.runai), MemoryKv(), channels={"prod-a/ml-team": "C1"})
        before = ALERTS_UNMAPPED.labels(reason="no_workload")._value.get()
        assert await routing.resolve(_alert(workload_name="bert-ft-squad")) is None
        assert ALERTS_UNMAPPED.labels(reason="no_workload")._value.get() == before + 1
