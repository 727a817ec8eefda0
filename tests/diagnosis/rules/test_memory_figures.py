"""One set of memory figures per report: the killed container's, named the same everywhere.

The headline, the request/limit evidence line, the recommendation and `--json` `memory` must
all name one limit: that of the container that was killed (an init container's own limit);
where the Kubernetes pod spec and the Run:ai spec disagree, the pod spec's, said so.
"""

from __future__ import annotations

import re

import pytest

from diagnosis.compose import compose
from diagnosis.quantity import format_bytes
from diagnosis.report import Category
from diagnosis.rules import classify
from tests.diagnosis.rules.tier2 import container, pod, with_tier2
from tests.factories import ago, event, evidence, spec, usage, workload
from tests.factories import pod as runai_pod

FIGURE = re.compile(r"\d+(?:\.\d+)? [KMGTP]iB")
SPEC_32 = spec(compute={"cpuMemoryRequest": "32Gi", "cpuMemoryLimit": "32Gi"})
OOM_EVENT = event("OOMKilled", "Container trainer was OOMKilled (exit code 137)")

CASES = [
    # evidence, category, container, limit every part names (None: none known), lines needed
    pytest.param(
        evidence(
            events=[OOM_EVENT],
            spec_=spec(compute={"cpuMemoryRequest": "16G", "cpuMemoryLimit": "16G"}),
            metrics=[usage(2**30)],
            metrics_requested=True,
        ),
        Category.OOM_KILLED,
        "trainer",
        "14.9 GiB",
        ["CPU-memory request/limit: 14.9 GiB / 14.9 GiB"],
        id="runai-spec-only",
    ),
    pytest.param(
        with_tier2(
            evidence(events=[OOM_EVENT], spec_=SPEC_32, metrics=[usage()], metrics_requested=True),
            pod([container("trainer", memory="16Gi", reason="OOMKilled", exit_code=137)]),
        ),
        Category.OOM_KILLED,
        "trainer",
        "16 GiB",
        [
            "CPU-memory request/limit of container trainer: 16 GiB / 16 GiB",
            "The Run:ai spec says 32 GiB / 32 GiB, but the Kubernetes pod spec "
            "(16 GiB / 16 GiB) is what was enforced",
        ],
        id="pod-spec-wins-over-runai-spec",
    ),
    pytest.param(
        with_tier2(
            evidence(spec_=SPEC_32, metrics=[usage()], metrics_requested=True),
            pod(
                [container("trainer", memory="32Gi")],
                init=[container("unpack", memory="8Gi", reason="OOMKilled", exit_code=137)],
            ),
        ),
        Category.OOM_KILLED,
        "unpack",
        "8 GiB",
        ["CPU-memory request/limit of init container unpack: 8 GiB / 8 GiB"],
        id="init-container-own-limit",
    ),
    pytest.param(
        evidence(
            workload(phaseMessage="Init container unpack terminated: OOMKilled, exit code 137"),
            spec_=SPEC_32,
            metrics=[usage()],
            metrics_requested=True,
        ),
        Category.OOM_KILLED,
        "unpack",
        None,
        [],
        id="init-container-limit-unknown-never-the-main-one",
    ),
    pytest.param(
        with_tier2(
            evidence(pods=[runai_pod("OOMKilled")], spec_=SPEC_32, metrics_requested=True),
            pod([container("trainer", memory="24Gi")]),
        ),
        Category.OOM_KILLED,
        "trainer",
        "24 GiB",
        ["CPU-memory request/limit of container trainer: 24 GiB / 24 GiB"],
        id="unnamed-kill-single-container-pod",
    ),
    pytest.param(
        with_tier2(
            evidence(spec_=SPEC_32, metrics=[usage(15 * 2**30)], metrics_requested=True),
            pod([container("trainer", memory="16Gi", reason="Error", exit_code=137)]),
        ),
        Category.UNKNOWN,
        "trainer",
        "16 GiB",
        ["Peak CPU-memory usage: 15 GiB = 94% of the limit"],
        id="unexplained-137-killed-container",
    ),
]


@pytest.mark.parametrize(("ev", "category", "killed", "limit", "lines"), CASES)
def test_one_set_of_figures(ev, category, killed, limit, lines):
    """Headline, evidence, advice and JSON name the killed container's limit, and only it."""
    finding = classify(ev)
    report = compose(ev, finding)
    assert report.category is category
    assert report.memory is not None
    assert report.memory.container == killed
    shown = format_bytes(report.memory.limit_bytes) if report.memory.limit_bytes else None
    assert shown == limit
    data = report.to_json_dict("24h")["memory"]
    assert data["limit_bytes"] == report.memory.limit_bytes
    assert data["container"] == killed
    series = [s.usage_bytes for s in report.memory.samples]
    assert report.memory.peak_bytes == (max(series) if series else None)
    assert [s["usage_bytes"] for s in data["samples"]] == series
    texts = [report.headline, *report.recommendations]
    named = {figure for text in texts for figure in FIGURE.findall(text)}
    assert named <= ({limit} if limit else set()), named
    if limit and category is Category.OOM_KILLED:
        assert limit in report.headline
        assert any(limit in r for r in report.recommendations)
    evidence_texts = [e.text for e in report.evidence]
    for line in lines:
        assert any(line in text for text in evidence_texts), (line, evidence_texts)
    request_limit = [t for t in evidence_texts if t.startswith("CPU-memory request/limit")]
    assert all(limit in t for t in request_limit) if limit else not request_limit


INIT_CASES = [c for c in CASES if "init" in str(c.id)]


@pytest.mark.parametrize(("ev", "category", "killed", "limit", "lines"), INIT_CASES)
def test_no_training_advice_for_an_init_container(ev, category, killed, limit, lines):
    """Batch size and gradient checkpointing mean nothing to an init container's script."""
    report = compose(ev, classify(ev))
    advice = " ".join(report.recommendations).lower()
    assert f"init container {killed}" in advice
    assert "batch size" not in advice
    assert "gradient checkpointing" not in advice
    assert any("init container" in m for m in report.missing) or limit is not None


def test_an_oom_kill_is_dated_by_its_newest_signal_for_the_chart():
    """The chart marks the kill where the newest dated OOMKilled signal puts it."""
    ev = evidence(
        events=[event("OOMKilled", "Container trainer was OOMKilled", minutes_ago=40), OOM_EVENT],
        spec_=SPEC_32,
        metrics=[usage(2**30)],
        metrics_requested=True,
    )
    report = compose(ev, classify(ev))
    assert report.category is Category.OOM_KILLED
    assert report.memory is not None
    assert report.memory.killed_at == ago(12)  # the newer of the two kills
    assert report.to_json_dict("24h")["memory"]["killed_at"] == "2026-11-30T11:48:00Z"


def test_an_unexplained_exit_137_is_not_dated_as_an_oom_kill():
    ev = with_tier2(
        evidence(spec_=SPEC_32, metrics=[usage(15 * 2**30)], metrics_requested=True),
        pod([container("trainer", memory="16Gi", reason="Error", exit_code=137)]),
    )
    report = compose(ev, classify(ev))
    assert report.category is Category.UNKNOWN
    assert report.memory is not None
    assert report.memory.killed_at is None


@pytest.mark.parametrize(
    ("limit", "read", "says"),
    [
        ("48Gi", True, "it exceeded its CPU-memory limit of 48 GiB"),
        (None, True, "no CPU-memory limit is set, so the node's memory was the ceiling"),
        (None, False, "it ran out of memory (its CPU-memory limit could not be read)"),
    ],
)
def test_the_oom_headline_claims_only_the_limit_that_was_read(limit, read, says):
    compute = {"cpuMemoryRequest": "32Gi", "cpuMemoryLimit": limit}
    ev = evidence(
        workload(phase="Failed"),
        events=[event("OOMKilled", "Container trainer was OOMKilled", 5)],
        spec_=spec(compute=compute) if read else None,
    )
    finding = classify(ev)
    assert finding.category is Category.OOM_KILLED
    assert finding.headline == f"Container trainer was OOM-killed: {says}."
    assert finding.memory is not None
    assert finding.memory.configured_read is read  # a None limit is "not set" only when read
    report = compose(ev, finding).to_json_dict("24h")
    assert report["memory"]["configured_read"] is read


@pytest.mark.parametrize(
    ("compute", "read", "line", "gap"),
    [
        pytest.param(
            {"cpuMemoryRequest": "32Gi", "cpuMemoryLimit": None},
            True,
            "CPU-memory request/limit: 32 GiB / not set (the node's memory is the ceiling)",
            None,
            id="read-and-not-set-is-a-fact",
        ),
        pytest.param(
            {"cpuMemoryRequest": "32Gi", "cpuMemoryLimit": "lots"},
            False,
            "CPU-memory request/limit: 32 GiB / unreadable",
            "CPU-memory limit (get_workload_spec gave no quantity)",
            id="a-value-that-is-no-quantity-is-a-gap",
        ),
        pytest.param(
            None,
            False,
            None,
            "CPU-memory request and limit (not in the spec, pods or workload record)",
            id="not-read-is-a-gap",
        ),
    ],
)
def test_a_limit_read_and_not_set_is_a_fact_and_one_not_read_a_gap(compute, read, line, gap):
    """A configuration read that sets no limit is a cited fact, never a "Not measured" gap.

    A figure not read (absent, or a value that is no quantity) is a gap and stays null.
    """
    ev = evidence(
        workload(phase="Failed"),
        events=[event("OOMKilled", "Container trainer was OOMKilled", 5)],
        spec_=spec(compute=compute) if compute is not None else None,
        metrics=[usage(2**30)],
        metrics_requested=True,
    )
    report = compose(ev, classify(ev))
    assert report.memory is not None
    assert report.memory.configured_read is read
    assert report.memory.limit_bytes is None  # not set, or not read: never a guess
    memory_gaps = [m for m in report.missing if m.startswith("CPU-memory")]
    assert memory_gaps == ([gap] if gap else [])
    texts = [e.text for e in report.evidence if e.text.startswith("CPU-memory request/limit")]
    assert texts == ([line] if line else [])
    advice = " ".join(report.recommendations)
    assert ("No CPU-memory limit is set" in advice) is read
