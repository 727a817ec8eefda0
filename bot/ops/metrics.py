"""The bot's Prometheus metrics: every series is defined here, once, and served by `/metrics`.

Modules record through these objects (`STAGE_SECONDS.labels(stage="post").observe(...)`);
nothing else creates metrics. They live in the process's own `REGISTRY`, not the client's
global one, so tests read exact values and a library's metrics never leak in.
"""

from __future__ import annotations

import os

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.exposition import CONTENT_TYPE_LATEST, generate_latest
from prometheus_client.multiprocess import MultiProcessCollector

__all__ = [
    "AUTHZ_DENIALS",
    "CONTENT_TYPE_LATEST",
    "DEAD_LETTERS",
    "DIAGNOSES",
    "DUPLICATES_DROPPED",
    "FAIL_OPEN",
    "HTTP_CONNECTIONS_CUT",
    "MULTIPROC_ENV",
    "QUEUE_DEPTH",
    "QUEUE_REJECTED",
    "RECLAIMED",
    "REDACTIONS",
    "REGISTRY",
    "SHARED_DIAGNOSES",
    "STAGES",
    "STAGE_SECONDS",
    "TEAMS_TOKENS_REJECTED",
    "UPSTREAM_CALLS",
    "exposition",
    "serving_registry",
]

REGISTRY = CollectorRegistry(auto_describe=True)
#: Set by a supervisor of several processes (`bot.app.processes`): each writes its figures there.
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"

#: The stages of one request, in order; every `stage` label is one of these.
STAGES = ("ack", "queue_wait", "resolve", "collect", "classify", "render", "post")

#: Seconds: from a fast ack (ms) to a diagnosis near its deadline (30 s by default).
_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)

STAGE_SECONDS = Histogram(
    "runai_why_stage_seconds",
    "Time spent in one stage of a request.",
    ["stage"],
    buckets=_BUCKETS,
    registry=REGISTRY,
)
DIAGNOSES = Counter(
    "runai_why_diagnoses",
    "Diagnoses finished, by outcome and category (category UNKNOWN: no rule matched).",
    ["outcome", "category"],
    registry=REGISTRY,
)
UPSTREAM_CALLS = Counter(
    "runai_why_upstream_calls",
    "Calls to Run:ai and Kubernetes by endpoint and status ('error': no HTTP status).",
    ["upstream", "endpoint", "status"],
    registry=REGISTRY,
)
SHARED_DIAGNOSES = Counter(
    "runai_why_shared_diagnoses",
    "Requests answered from another request's diagnosis: 'flight' (joined one running), "
    "'cache' (reused a recent report).",
    ["via"],
    registry=REGISTRY,
)
DUPLICATES_DROPPED = Counter(
    "runai_why_duplicates_dropped",
    "Deliveries dropped as duplicates of one already taken (retries, double deliveries).",
    ["platform"],
    registry=REGISTRY,
)
QUEUE_DEPTH = Gauge(
    "runai_why_queue_depth",
    "Work items waiting or in flight in the durable queue, as last seen by this process.",
    registry=REGISTRY,
    multiprocess_mode="mostrecent",  # several processes: the one that looked last
)
QUEUE_REJECTED = Counter(
    "runai_why_queue_rejected",
    "Items refused at once: 'full' (their lane, 'ask' or 'push', held as many as it may) or "
    "'capped' (their asker already had as many waiting or being answered as one may).",
    ["lane", "reason"],
    registry=REGISTRY,
)
RECLAIMED = Counter(
    "runai_why_work_reclaimed",
    "Work items claimed from a consumer that stopped answering (XAUTOCLAIM).",
    registry=REGISTRY,
)
DEAD_LETTERS = Counter(
    "runai_why_dead_letters",
    "Work items moved to the dead-letter stream after too many failed attempts.",
    registry=REGISTRY,
)
REDACTIONS = Counter(
    "runai_why_redactions",
    "Secrets and personal data masked in upstream text before it was shown.",
    registry=REGISTRY,
)
AUTHZ_DENIALS = Counter(
    "runai_why_authz_denials",
    "Requests refused by per-user authorization, by reason.",
    ["reason"],
    registry=REGISTRY,
)
TEAMS_TOKENS_REJECTED = Counter(
    "runai_why_teams_tokens_rejected",
    "Teams requests refused (401) for their Bot Framework token, by reason ('lifetime': its "
    "expiry further ahead than TEAMS_MAX_TOKEN_LIFETIME_S).",
    ["reason"],
    registry=REGISTRY,
)


def serving_registry() -> CollectorRegistry:
    """What `/metrics` serves: this process's registry, or the sum over a supervisor's processes.

    With `PROMETHEUS_MULTIPROC_DIR` set (`bot.app.processes`), every process's figures are in
    files there, and any of them (or the supervisor) serves all of them added up.
    """
    directory = os.environ.get(MULTIPROC_ENV)
    if not directory:
        return REGISTRY
    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=directory)  # type: ignore[no-untyped-call]
    return registry


def exposition() -> bytes:
    """The registry in the Prometheus text format, for `GET /metrics`."""
    return generate_latest(serving_registry())


FAIL_OPEN = Counter(
    "runai_why_fail_open",
    "Times Redis failed while coordinating replicas and the work went ahead without it: "
    "'flight' (single-flight), 'runai_semaphore' (the global Run:ai call limit).",
    ["what"],
    registry=REGISTRY,
)
HTTP_CONNECTIONS_CUT = Counter(
    "runai_why_http_connections_cut",
    "Connections `serve` closed before their request arrived: its head ('header') or body "
    "('body') too slow, or accepted over HTTP_MAX_CONNECTIONS ('limit').",
    ["reason"],
    registry=REGISTRY,
)

# The push side (bot/push, bot/watch, bot/alerts): answers nobody asked for.
__all__ += [
    "ALERTS_RECEIVED",
    "ALERTS_UNMAPPED",
    "PUSH_LAG",
    "PUSH_NEW_FAILURES",
    "PUSH_POSTS",
    "PUSH_SUPPRESSED",
    "WATCH_POLLS",
]
WATCH_POLLS = Counter(
    "runai_why_watch_polls",
    "Polls of one watched project's workload list: 'ok', 'failed' (the list call failed), or "
    "'unchecked' (its subscriber's access could not be read: not polled, caught up later).",
    ["outcome"],
    registry=REGISTRY,
)
PUSH_NEW_FAILURES = Counter(
    "runai_why_push_new_failures",
    "Workloads a watch found newly failed (or preempted), or alerts taken, before grouping.",
    ["source"],
    registry=REGISTRY,
)
PUSH_POSTS = Counter(
    "runai_why_push_posts",
    "Pushed answers posted: as a new message ('new'), in the thread of the same failure "
    "('group'), in a storm's thread ('storm'), in the hour's overflow thread ('overflow'), "
    "resolution notes ('resolved'), and a watch's notice that it stopped or narrowed "
    "('notice').",
    ["source", "mode"],
    registry=REGISTRY,
)
PUSH_SUPPRESSED = Counter(
    "runai_why_push_suppressed",
    "Pushed answers not posted as a new message: 'duplicate' (an alert's repeat, a failure "
    "already posted), 'grouped' (into the same failure's thread), 'rate_limited' (overflow), "
    "'subscriber_access' (not posted: its watch's subscriber may not read it now).",
    ["reason"],
    registry=REGISTRY,
)
PUSH_LAG = Histogram(
    "runai_why_push_lag_seconds",
    "From a workload's phase change (phaseUpdatedAt) to its pushed answer being posted.",
    buckets=(5.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0, 3600.0),
    registry=REGISTRY,
)
ALERTS_RECEIVED = Counter(
    "runai_why_alerts_received",
    "Alertmanager alerts received on /alerts/alertmanager, by status (firing, resolved).",
    ["status"],
    registry=REGISTRY,
)
ALERTS_UNMAPPED = Counter(
    "runai_why_alerts_unmapped",
    "Alerts that could not be mapped to a Run:ai workload and a channel, by reason; never "
    "guessed, only counted and logged.",
    ["reason"],
    registry=REGISTRY,
)
