"""`POST /alerts/alertmanager` in-process: what it takes, counts, refuses, and answers."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import httpx
import pytest
from pydantic import SecretStr
from starlette.applications import Starlette

from bot.alerts.channels import AlertChannels
from bot.alerts.route import MAX_BODY_BYTES, AlertIngress
from bot.app.backends import ASGI_BASE_URL
from bot.app.pushing import build_push, declared_watches
from bot.authz import Authorizer
from bot.config import ConfigError, Settings
from bot.conversation import MemoryStore
from bot.ops.metrics import ALERTS_UNMAPPED
from bot.push import MemoryKv
from bot.watch.subscriptions import Subscriptions
from bot.work import Enqueued, Intake, MemoryWorkQueue, QueueUnavailable, WorkItem
from diagnosis import Cluster, RunaiClient, RunaiConfig, UpstreamUnavailable
from tests.bot.push.alerts import TOKEN, alert, webhook
from tests.bot.work.items import item

AUTH = {"Authorization": f"Bearer {TOKEN}"}


class DownQueue(MemoryWorkQueue):
    async def enqueue(self, item: WorkItem, *, dedupe: str, dedupe_ttl_s: int) -> Enqueued:
        del item, dedupe, dedupe_ttl_s
        raise QueueUnavailable("down")


CHANNELS = AlertChannels({"prod-a/ml-team": "C1"})


def _client(
    queue: MemoryWorkQueue,
    default_cluster: str | None = "prod-a",
    *,
    channels: AlertChannels = CHANNELS,
    max_per_group: int = 20,
) -> httpx.AsyncClient:
    ingress = AlertIngress(
        TOKEN,
        queue,
        channels=channels,
        default_cluster=default_cluster,
        deadline_s=60,
        max_per_group=max_per_group,
    )
    app = Starlette(routes=ingress.routes())
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://bot")


def _answer(**counts: int) -> dict[str, int]:
    zero = dict.fromkeys(("queued", "duplicates", "unmapped", "merged", "excess"), 0)
    return zero | counts


async def test_mappable_alerts_are_queued_and_the_rest_counted():
    queue = MemoryWorkQueue(max_items=10)
    before = ALERTS_UNMAPPED.labels(reason="not_a_project_namespace")._value.get()
    body = webhook(alert(), alert(namespace="kube-system", fingerprint="other"))
    async with _client(queue) as client:
        answer = await client.post("/alerts/alertmanager", content=body, headers=AUTH)
    assert answer.json() == _answer(queued=1, unmapped=1)
    assert ALERTS_UNMAPPED.labels(reason="not_a_project_namespace")._value.get() == before + 1
    assert await queue.depth() == 1


@pytest.mark.parametrize(
    ("queue", "status"),
    [
        pytest.param(DownQueue(max_items=10), 503, id="Redis down"),
        pytest.param(MemoryWorkQueue(max_items=0), 503, id="the queue full"),
    ],
)
async def test_what_cannot_be_taken_is_503_so_alertmanager_sends_it_again(
    queue: MemoryWorkQueue, status: int
):
    async with _client(queue) as client:
        answer = await client.post("/alerts/alertmanager", content=webhook(alert()), headers=AUTH)
    assert answer.status_code == status


@pytest.mark.parametrize(
    ("body", "headers", "status"),
    [
        pytest.param(webhook(alert()), {}, 401, id="no token"),
        pytest.param(webhook(alert()), {"Authorization": f"Bearer {TOKEN}x"}, 401, id="wrong"),
        pytest.param(webhook(alert()), {"Authorization": TOKEN}, 401, id="not a bearer"),
        pytest.param(b"[" * 100 + b"]" * 100, AUTH, 400, id="nested too deep"),
        pytest.param(b'{"version": "4", "status": "firing"}', AUTH, 400, id="no alerts"),
        pytest.param(b" " * (MAX_BODY_BYTES + 1), AUTH, 413, id="too large"),
    ],
)
async def test_refused(body: bytes, headers: dict[str, str], status: int):
    queue = MemoryWorkQueue(max_items=10)
    async with _client(queue) as client:
        answer = await client.post("/alerts/alertmanager", content=body, headers=headers)
    assert answer.status_code == status
    assert await queue.depth() == 0


async def test_a_truncated_group_is_taken_as_far_as_it_goes():
    queue = MemoryWorkQueue(max_items=10)
    body = webhook(alert()).replace(b'"truncatedAlerts": 0', b'"truncatedAlerts": 3')
    async with _client(queue) as client:
        answer = await client.post("/alerts/alertmanager", content=body, headers=AUTH)
    assert answer.json()["queued"] == 1


def _pods(count: int, *, namespace: str = "runai-ml-team") -> bytes:
    """One group of `count` crash-looping pods, one workload each."""
    return webhook(
        *(alert(pod=f"job{i}-0-0", fingerprint=f"fp{i}", namespace=namespace) for i in range(count))
    )


async def test_alerts_about_a_project_without_a_channel_are_never_queued():
    """A thousand alerts nobody would be shown take no place in the queue."""
    queue = MemoryWorkQueue(max_items=10)
    before = ALERTS_UNMAPPED.labels(reason="no_channel")._value.get()
    async with _client(queue, max_per_group=1000) as client:
        body = _pods(1000, namespace="runai-nlp")
        answer = await client.post("/alerts/alertmanager", content=body, headers=AUTH)
    assert answer.json() == _answer(unmapped=1000)
    assert ALERTS_UNMAPPED.labels(reason="no_channel")._value.get() == before + 1000
    assert await queue.depth() == 0


async def test_a_group_queues_at_most_its_bound_and_503_brings_the_rest_at_once():
    """Past the bound the answer is 503: Alertmanager's retry takes the next ones."""
    queue = MemoryWorkQueue(max_items=10, max_pushed=100)
    async with _client(queue, max_per_group=3) as client:
        first = await client.post("/alerts/alertmanager", content=_pods(5), headers=AUTH)
        again = await client.post("/alerts/alertmanager", content=_pods(5), headers=AUTH)
    assert (first.status_code, first.json()) == (503, _answer(queued=3, excess=2))
    assert (again.status_code, again.json()) == (200, _answer(queued=2, duplicates=3))
    assert await queue.depth() == 5


async def test_retries_of_a_large_group_drain_it_each_alert_taken_once():
    queue = MemoryWorkQueue(max_items=100, max_pushed=100)
    answers: list[httpx.Response] = []
    async with _client(queue, max_per_group=4) as client:
        while not answers or answers[-1].status_code == 503:
            answers.append(
                await client.post("/alerts/alertmanager", content=_pods(10), headers=AUTH)
            )
    assert [a.json()["queued"] for a in answers] == [4, 4, 2]
    assert [a.json()["duplicates"] for a in answers] == [0, 4, 8]
    assert [a.status_code for a in answers] == [503, 503, 200]
    assert await queue.depth() == 10


def _resolved(count: int) -> list[dict[str, object]]:
    return [alert(pod=f"done{i}-0-0", fingerprint=f"r{i}", status="resolved") for i in range(count)]


@pytest.mark.parametrize(
    ("firing", "resolved", "status", "answer"),
    [
        pytest.param(3, 2, 200, _answer(queued=5), id="the bound full of firing ones"),
        pytest.param(5, 2, 503, _answer(queued=5, excess=2), id="firing past the bound"),
        pytest.param(0, 5, 200, _answer(queued=5), id="only resolved, past the bound"),
    ],
)
async def test_resolved_alerts_are_taken_first_and_outside_the_bound(
    firing: int, resolved: int, status: int, answer: dict[str, int]
):
    """A resolution left out would leave its thread showing the failure as firing."""
    queue = MemoryWorkQueue(max_items=20, max_pushed=100)
    fired = [alert(pod=f"job{i}-0-0", fingerprint=f"fp{i}") for i in range(firing)]
    body = webhook(*fired, *_resolved(resolved))  # the resolved ones last, as sent
    async with _client(queue, max_per_group=3) as client:
        sent = await client.post("/alerts/alertmanager", content=body, headers=AUTH)
    assert (sent.status_code, sent.json()) == (status, answer)
    taken = await queue.take("w", count=20, block_s=0)
    statuses = [d.item.responder["status"] for d in taken if d.item is not None]
    assert statuses == ["resolved"] * resolved + ["firing"] * (answer["queued"] - resolved)


async def test_firing_alerts_about_one_workload_are_one_item():
    """Each of a workload's pods alerts: one diagnosis, however often the group is sent."""
    queue = MemoryWorkQueue(max_items=10)
    named = [
        alert(pod=f"train-0-{i}", fingerprint=f"fp{i}", label_workload_name="train")
        for i in range(3)
    ]
    body = webhook(*named, alert(pod="eval-0-0", fingerprint="other"))
    async with _client(queue) as client:
        first = await client.post("/alerts/alertmanager", content=body, headers=AUTH)
        again = await client.post("/alerts/alertmanager", content=body, headers=AUTH)
    assert first.json() == _answer(queued=2, merged=2)
    assert again.json() == _answer(duplicates=2, merged=2)
    assert await queue.depth() == 2


async def test_an_alert_storm_never_refuses_a_person_s_request():
    """The storm fills the pushed items' bound (503: sent again later), never people's."""
    queue = MemoryWorkQueue(max_items=10, max_pushed=3, max_per_asker=5)
    async with _client(queue, max_per_group=1000) as client:
        answer = await client.post("/alerts/alertmanager", content=_pods(1000), headers=AUTH)
    assert answer.status_code == 503
    assert await queue.depth() == 3
    asked = await queue.enqueue(item("U2"), dedupe="msg:U2", dedupe_ttl_s=60)
    assert asked.intake is Intake.ACCEPTED


def _clusters(*known: Cluster) -> Callable[[], Awaitable[list[Cluster]]]:
    async def listed() -> list[Cluster]:
        return list(known)

    return listed


async def _down() -> list[Cluster]:
    raise UpstreamUnavailable(
        "connection refused", operation="list_clusters", url="/api/v1/clusters"
    )


PROD_A = Cluster(uuid="2b7c3d1e-9f4a-4c58-a1d6-5e8f0b3c7d92", name="prod-a")


@pytest.mark.parametrize(
    ("channels", "cluster", "answer"),
    [
        pytest.param({"prod-a/ml-team": "C1"}, "prod-a", _answer(queued=1), id="as keyed"),
        pytest.param(
            {f"{PROD_A.uuid}/ml-team": "C1"}, "prod-a", _answer(queued=1), id="keyed by its ID"
        ),
        pytest.param(
            {"prod-b/ml-team": "C1"}, "prod-a", _answer(unmapped=1), id="another cluster's"
        ),
        pytest.param(
            {"prod-b/ml-team": "C1"}, "prod-z", _answer(queued=1), id="not in the cached list"
        ),
    ],
)
async def test_a_label_naming_the_cluster_otherwise_than_the_key_is_checked_by_the_list(
    channels: dict[str, str], cluster: str, answer: dict[str, int]
):
    queue = MemoryWorkQueue(max_items=10)
    known = AlertChannels(channels, _clusters(PROD_A, Cluster(uuid="u-b", name="prod-b")))
    async with _client(queue, cluster, channels=known) as client:
        sent = await client.post("/alerts/alertmanager", content=webhook(alert()), headers=AUTH)
    assert sent.json() == answer


async def test_a_cluster_newer_than_the_cached_list_is_left_to_the_worker():
    """Keyed by its new ID, named in the label: only a fresh list (the worker's) tells."""
    queue = MemoryWorkQueue(max_items=10)
    known = AlertChannels({"9e1f-new-uuid/ml-team": "C1"}, _clusters(PROD_A))
    async with _client(queue, "prod-new", channels=known) as client:
        sent = await client.post("/alerts/alertmanager", content=webhook(alert()), headers=AUTH)
    assert sent.json() == _answer(queued=1)


async def test_without_the_cluster_list_the_worker_decides():
    queue = MemoryWorkQueue(max_items=10)
    known = AlertChannels({f"{PROD_A.uuid}/ml-team": "C1"}, _down)
    async with _client(queue, channels=known) as client:
        sent = await client.post("/alerts/alertmanager", content=webhook(alert()), headers=AUTH)
    assert sent.json() == _answer(queued=1)


def test_a_bad_watches_entry_stops_the_start_naming_it():
    settings = Settings(_env_file=None, watches=[{"channel": "C1", "project": "nlp"}])
    with pytest.raises(
        ConfigError, match=r"WATCHES\[0\] is not a watch \(cluster: Field required\)"
    ):
        declared_watches(settings)


ROOM = {"channel": "19:nlp@thread.tacv2", "project": "nlp", "cluster": "prod-a"}
ROOM_AT = {**ROOM, "platform": "teams", "service_url": "https://smba.example/emea/"}


@pytest.mark.parametrize(
    ("tenant", "entry", "team"),
    [
        pytest.param("tenant-acme", ROOM_AT, "tenant-acme", id="the bot's tenant by default"),
        pytest.param("tenant-acme", {**ROOM_AT, "team": "t2"}, "t2", id="as the entry says"),
        pytest.param(None, {**ROOM_AT, "team": "t2"}, "t2", id="said, without a tenant set"),
    ],
)
async def test_a_declared_teams_watch_is_keyed_by_its_tenant(
    tenant: str | None, entry: dict[str, str], team: str
):
    settings = Settings(_env_file=None, watches=[entry], teams_tenant_id=tenant)
    [declared] = declared_watches(settings)
    assert declared.target().team == team
    # an alert for that channel is posted where its conversations are kept, tenant included
    subscriptions = Subscriptions(MemoryKv(), [declared])
    assert await subscriptions.teams_target(ROOM["channel"]) == declared.target()
    assert await subscriptions.teams_target("19:other@thread.tacv2") is None


def test_a_declared_teams_watch_without_its_tenant_stops_the_start():
    settings = Settings(_env_file=None, watches=[ROOM_AT])
    with pytest.raises(ConfigError, match=r"WATCHES\[0\] is not a watch \(.*tenant ID as team"):
        declared_watches(settings)


@pytest.mark.parametrize(("token", "routes"), [(None, 0), ("change-me", 0), ("s3cret", 1)])
def test_the_route_is_served_only_with_a_real_token(token: str | None, routes: int):
    settings = Settings(
        _env_file=None, alertmanager_token=SecretStr(token) if token is not None else None
    )
    runai = RunaiClient(RunaiConfig(url=ASGI_BASE_URL, client_id="x", client_secret=SecretStr("y")))
    push = build_push(
        settings,
        runai=runai,
        lister=None,
        kube=None,
        store=MemoryStore(),
        redis_client=None,
        queue=MemoryWorkQueue(max_items=1),
        posters={},
        authorizer=Authorizer(runai),
    )
    assert len(push.routes) == routes
    assert push.poller is None
