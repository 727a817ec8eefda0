"""One fact, one line: identical facts merge with all their sources; a few lines decide.

An OOM kill reported by the phase message, the history, Run:ai's pod, an event and `kubectl
describe pod` is one fact with five sources. The verdict rests on a few facts (the direct
signal, the quantities, the failing log line) and the gaps that matter; the report keeps
every line for `--json` and "Show all evidence", and never says "and N more".
"""

from __future__ import annotations

from diagnosis.compose import TIER2_MISSING, compose
from diagnosis.report import Category
from diagnosis.rules import classify
from tests.diagnosis.rules.tier2 import DESCRIBE, container, pod, with_tier2
from tests.factories import (
    ago,
    event,
    evidence,
    history_event,
    iso,
    phase_update,
    spec,
    usage,
    workload,
)
from tests.factories import pod as runai_pod

OOM_MESSAGE = "Container trainer was OOMKilled (exit code 137)"


def _oom_report():
    ev = evidence(  # one kill, reported within a minute by five sources
        workload(phaseMessage=OOM_MESSAGE, phaseUpdatedAt=iso(ago(1))),
        events=[event("OOMKilled", "Container trainer in pod bert-ft-0-0 was OOMKilled", 0.5)],
        pods=[runai_pod("OOMKilled", k8sPhaseUpdatedAt=iso(ago(1)))],
        history=[
            phase_update("Running", 120),
            phase_update("Failed", 1, f"Pod bert-ft-0-0 failed: {OOM_MESSAGE}"),
        ],
        spec_=spec(compute={"cpuMemoryRequest": "32Gi", "cpuMemoryLimit": "32Gi"}),
        metrics=[usage(8 * 2**30, 31 * 2**30)],
        metrics_requested=True,
    )
    ev = with_tier2(
        ev, pod([container("trainer", memory="32Gi", reason="OOMKilled", exit_code=137)])
    )
    return compose(ev, classify(ev))


def test_identical_facts_merge_into_one_line_with_all_their_sources():
    report = _oom_report()
    oom = [f for f in report.facts() if "OOMKilled" in f.text]

    assert len(oom) == 1, [f.text for f in report.facts()]
    assert set(oom[0].sources) == {
        "get_workload_status",
        "get_workload_history",
        "get_workload_pods",
        DESCRIBE,
    }
    assert len([e for e in report.evidence if "OOMKilled" in e.text]) >= 4  # every line kept


def test_a_few_facts_decide_the_verdict():
    report = _oom_report()
    deciding = report.deciding()

    assert report.category is Category.OOM_KILLED
    assert 2 <= len(deciding) <= 6
    assert "OOMKilled" in deciding[0].text
    assert any("request/limit" in f.text for f in deciding)
    assert any("Peak CPU-memory usage" in f.text for f in deciding)
    assert not any(f.text.startswith("Workload phase") for f in deciding)


def test_the_gap_that_matters_without_kubernetes_is_container_evidence():
    ev = evidence(
        workload(phaseMessage="container trainer terminated with exit code 1"),
        pods=[runai_pod("Error")],
    )
    report = compose(ev, classify(ev))

    assert report.category is Category.CRASH_APP_ERROR
    assert report.deciding_missing == (TIER2_MISSING,)


def test_a_crash_loop_is_all_shown_never_counted_away():
    back_off = "Back-off restarting failed container trainer in pod bert-ft-0-0"
    events = [event("BackOff", back_off, m) for m in range(10, 70, 5)]
    ev = evidence(
        workload(phase="Running", phaseMessage="container trainer exited with code 1"),
        events=events,
        history=[history_event("BackOff", back_off, 5)],
    )
    report = compose(ev, classify(ev))
    data = report.to_json_dict("24h")

    assert not any("more of the same kind" in e["text"] for e in data["evidence"])
    assert len([e for e in data["evidence"] if "Back-off" in e["text"]]) == len(events) + 1
    assert len([f for f in data["facts"] if "Back-off" in f["text"]]) == 1


def test_json_gains_sources_deciding_and_the_pod_of_each_line():
    data = _oom_report().to_json_dict("24h")

    for line in (*data["evidence"], *data["facts"]):
        assert {"text", "source", "sources", "deciding", "pod", "rank"} <= set(line)
        assert line["sources"][0] == line["source"]
    assert data["facts"][0]["deciding"] is True
    assert data["facts"][0]["pod"] == "bert-ft-0-0"
