"""The scenarios of issue 12 but the distinct asks and the failover, each returning its rows.

Each scenario starts its own replicas (a cold start, as after a deploy), drives them with
signed slash commands and reads the outcome from the fake Slack and the simulator's request
log. A scenario the bot cannot pass yet reports "MISSED" with its figures; it does not crash.
"""

from __future__ import annotations

import math
import statistics
import time
from collections import Counter
from dataclasses import dataclass

from bench.driver import Ask, Outcome, wait_until
from bench.stats import Figure, Target, Timed, chain_levels, number, percentile, times
from bench.world import World, askers

__all__ = [
    "CPU_PER_REQUEST_TARGET_S",
    "LATENCY_S",
    "PEAK_RSS_BOUND_MB",
    "Reference",
    "Rows",
    "ask_for",
    "one",
    "queued",
    "storm",
]

LATENCY_S = 0.050
#: Peak memory one process may reach (issue 12); deploy/kubernetes sizes its pods above it.
PEAK_RSS_BOUND_MB = 150.0
#: CPU per answered request, the chart included, over every process (issue 25).
CPU_PER_REQUEST_TARGET_S = 0.040
#: The minimal chain of a warm OOM diagnosis with Tier 2 (issue 25): status, then the reads
#: that need only the workload, then the Kubernetes pod and node: 3 levels.
MINIMAL_LEVELS = 3
TOLD_AT_ONCE_S = 3.0
#: People asking: 100, so the 1,000 asks of `queued` are 10 each, within `QUEUE_MAX_PER_ASKER`
#: (a bound on one person, not on a crowd); 200 concurrent asks of `storm` are 2 each.
USERS = askers(100)
Rows = list[Target | Figure]


@dataclass(frozen=True)
class Reference:
    """One cold diagnosis through the app: its upstream calls and their chain depth."""

    calls: list[Timed]
    levels: int

    @property
    def floor_s(self) -> float:
        """Levels x the injected latency."""
        return self.levels * LATENCY_S


def ask_for(world: World, tag: str, index: int, workload_id: str, replica: str) -> Ask:
    """The `index`-th ask of a scenario (`tag`) about `workload_id`, sent to `replica`."""
    return Ask(
        tag=tag,
        index=index,
        user=USERS[index % len(USERS)],
        text=world.scenario.ask(workload_id),
        expect=f"OOM_KILLED · {_name(world, workload_id)}",
        replica=replica,
    )


def _name(world: World, workload_id: str) -> str:
    if workload_id == world.scenario.source_id:
        return "training-job-42"
    return f"bench-{world.scenario.workload_ids.index(workload_id):04d}"


def _within(calls: list[Timed], start: float, end: float) -> list[Timed]:
    return [c for c in calls if start <= c.start <= end]


def _wall_clock(monotonic: float) -> float:
    """A `time.monotonic()` reading as Unix time (the simulator logs Unix time)."""
    return time.time() - (time.monotonic() - monotonic)


def _without_tokens(calls: list[Timed]) -> list[Timed]:
    return [c for c in calls if not c.path.endswith("/token")]


def _kinds(calls: list[Timed]) -> str:
    def kind(path: str) -> str:
        if "/k8s/" in path:
            return "kubernetes"
        if path.endswith("/token"):
            return "token"
        if path.endswith("/clusters"):
            return "clusters"
        if "/workloads" in path:
            return "workload"
        return "access"

    counted = Counter(kind(c.path) for c in calls)
    return ", ".join(f"{k} {v}" for k, v in sorted(counted.items()))


async def _one_ask(world: World, tag: str, index: int, workload_id: str) -> tuple[Ask, Outcome]:
    [replica] = world.replicas[:1]
    ask = ask_for(world, tag, index, workload_id, replica.name)
    await world.send([ask])
    found = await wait_until(world.slack, [ask], timeout_s=30, quiet_s=10)
    return ask, found[ask.key]


def _calls_of(world: World, ask: Ask, outcome: Outcome) -> list[Timed]:
    end = outcome.answered_at if outcome.answered_at is not None else time.monotonic()
    return _within(world.upstream_calls(), _wall_clock(ask.sent), _wall_clock(end))


async def one(world: World, warm_runs: int = 5) -> tuple[Rows, Reference]:
    """1: one full OOM diagnosis with Tier 2: wall time against the chain floor and serial sum."""
    world.reset()
    # Each warm ask must diagnose: a reused report (DIAGNOSIS_CACHE_TTL_S) makes no calls.
    await world.serve(1, DIAGNOSIS_CACHE_TTL_S="0")
    source = world.scenario.source_id
    cold_ask, cold = await _one_ask(world, "one", 0, source)
    cold_calls = _calls_of(world, cold_ask, cold)
    reference = Reference(cold_calls, chain_levels(cold_calls))
    walls, e2es, floors, serials, levels = [], [], [], [], []
    for run in range(1, warm_runs + 1):
        ask, outcome = await _one_ask(world, "one", run, source)
        calls = _calls_of(world, ask, outcome)
        if outcome.answered_at is None or not calls:
            continue
        levels.append(chain_levels(calls))
        floors.append(levels[-1] * LATENCY_S)
        serials.append(len(calls) * LATENCY_S)
        walls.append(max(c.end for c in calls) - min(c.start for c in calls))
        e2es.append(outcome.answered_at - ask.sent)
    wall = statistics.median(walls) if walls else math.nan
    floor = statistics.median(floors) if floors else math.nan
    serial = statistics.median(serials) if serials else math.nan
    e2e = statistics.median(e2es) if e2es else math.nan
    rows: Rows = [
        Target(
            "1. diagnosis wall / minimal chain floor",
            wall,
            MINIMAL_LEVELS * LATENCY_S,
            1.2,
            "s",
            f"median of {len(walls)} warm runs, {statistics.median(levels) if levels else 0:g} "
            f"levels from the request log (floor of those: {number(floor, 's')})",
        ),
        Figure(
            "   wall / serial sum of its calls", f"{times(wall, serial)} ({number(serial, 's')})"
        ),
        Figure(
            "   end to end (signed POST -> answer in Slack)",
            f"{number(e2e, 's')} = {times(e2e, floor)} floor",
        ),
        Figure(
            "   cold start: calls, levels, end to end",
            f"{len(cold_calls)} calls ({_kinds(cold_calls)}), {reference.levels} levels, "
            f"{number((cold.answered_at or math.nan) - cold_ask.sent, 's')}",
        ),
        Figure("   Run:ai events GETs per diagnosis", _events_per_diagnosis(world, len(walls) + 1)),
    ]
    return rows, reference


def _events_per_diagnosis(world: World, runs: int) -> str:
    """How often each diagnosis read the workload's Run:ai events (issue 12: "twice")."""
    calls = world.upstream_calls()
    events = [c for c in calls if c.path.endswith("/events") and "/k8s/" not in c.path]
    return f"{len(events) / runs:.1f} (from the request log, {runs} diagnoses)"


def _private(asks: list[Ask], found: dict[str, Outcome]) -> str:
    """The most common private replies and ack texts (their first 60 characters), counted."""
    private = [text for a in asks for _, text in found[a.key].private]
    texts = Counter(t.split("\n")[0][:60] for t in [*private, *(a.ack_text for a in asks)] if t)
    return ", ".join(f"{n}x {t!r}" for t, n in texts.most_common(3)) or "none"


def _acks(asks: list[Ask]) -> list[float]:
    return [a.ack_s for a in asks if a.ack_s is not None and a.status == 200]  # noqa: PLR2004


async def storm(world: World, reference: Reference, count: int = 200) -> Rows:
    """2: `count` concurrent asks about one workload: upstream calls against one diagnosis."""
    world.reset()
    [replica] = await world.serve(1)
    source = world.scenario.source_id
    asks = [ask_for(world, "st", i, source, replica.name) for i in range(count)]
    await world.send(asks)
    found = await wait_until(world.slack, asks, timeout_s=60)
    calls = world.upstream_calls()
    answered = sum(1 for a in asks if found[a.key].answered_at is not None)
    acks = _acks(asks)
    # A process's own service-account token is how it may read, not a read of the
    # diagnosis: never shared through Redis (a bearer token there would let anyone who
    # reads Redis act as the bot), so each diagnosing process reads one; counted apart.
    reads, tokens = _without_tokens(calls), len(calls) - len(_without_tokens(calls))
    processes = replica.diagnosing_processes()
    return [
        Target(
            "3. storm: upstream calls / one diagnosis's",
            len(reads),
            len(_without_tokens(reference.calls)),
            1.0,
            detail=f"{_kinds(reads)}; token reads counted apart",
        ),
        Target(
            "   storm: token reads / diagnosing processes",
            tokens,
            processes,
            1.0,
            detail="each process reads its own; a token is never put in Redis",
        ),
        Target(
            "   storm: unanswered / asked",
            count - answered,
            count,
            0.0,
            detail=f"{answered} answered",
        ),
        Figure(
            "   storm: ack p99",
            f"{number(percentile(acks, 99), 's')} (raw sockets from a process of its own)",
        ),
        Figure("   storm: private replies", _private(asks, found)),
    ]


async def queued(world: World, count: int = 1000, settle_s: float = 45.0) -> Rows:
    """5: `count` asks at once: memory stays bounded; askers past the bound are told at once."""
    world.reset()
    [replica] = await world.serve(1)
    ids = world.scenario.workload_ids[:count]
    asks = [ask_for(world, "qu", i, w, replica.name) for i, w in enumerate(ids)]
    idle_mb = replica.memory_mb("VmRSS")
    await world.send(asks)
    found = await wait_until(
        world.slack, asks, timeout_s=settle_s, quiet_s=20, private_is_final=False
    )
    acked = [a for a in asks if a.status == 200]  # noqa: PLR2004
    silent = [  # an ack's own text (their place in the queue, or "full") is hearing at once
        a
        for a in acked
        if not a.ack_text
        and (
            (heard := found[a.key].first_word_at) is None
            or a.acked is None
            or heard - a.acked > TOLD_AT_ONCE_S
        )
    ]
    answered = [a for a in acked if found[a.key].answered_at is not None]
    told = [a for a in acked if found[a.key].private or a.ack_text]
    peak = replica.memory_mb()
    e2e = [found[a.key].answered_at - a.sent for a in answered]  # type: ignore[operator]
    return [
        Target(
            "6. queued: peak RSS, largest process / 150 MB",
            peak,
            PEAK_RSS_BOUND_MB,
            1.0,
            "MB",
            f"idle {number(idle_mb, 'MB')}, "
            f"{number((peak - idle_mb) * 1000 / count, 'KB')} per ask",
        ),
        Target(
            f"   queued: askers not told within {TOLD_AT_ONCE_S:g} s",
            len(silent),
            len(acked),
            0.0,
            detail="neither a placeholder, an answer nor a private notice",
        ),
        Figure("   queued: peak RSS per process", replica.memory_by_process()),
        Figure("   queued: private replies", _private(asks, found)),
        Figure(
            "   queued: answered, told privately, acked",
            f"{len(answered)}, {len(told)}, {len(acked)} of {count} within {settle_s:g} s; "
            f"e2e p50 {number(percentile(e2e, 50), 's')}, p99 {number(percentile(e2e, 99), 's')}, "
            f"ack p99 {number(percentile(_acks(asks), 99), 's')}",
        ),
    ]
