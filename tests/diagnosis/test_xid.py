"""GPU Xid errors: one table says where each points; a hardware Xid never decides alone.

The table's rows come from NVIDIA's Xid catalog (docs/failure-taxonomy.md, "GPU Xid
errors"). A node-class Xid in a log is cited evidence; it makes NODE_FAILURE only together
with the node signal the skill requires (NotReady, a drain, an eviction), and otherwise the
verdict is the one the rules give, with the Xid cited and the node's owner named.
"""

from __future__ import annotations

import pytest

from diagnosis.compose import compose
from diagnosis.kube.log_signals import line_facts, log_signal
from diagnosis.kube.models import KubeNode
from diagnosis.kube.node_signals import node_signals
from diagnosis.logs import failing_line
from diagnosis.redact import Redactor
from diagnosis.report import Category
from diagnosis.rules import classify
from diagnosis.xid import XidPoints, xid_in
from tests.factories import ago, evidence, iso, workload
from tests.factories import pod as runai_pod

LOGS = "kubectl logs, namespace runai-nlp"


@pytest.mark.parametrize(
    ("code", "points"),
    [
        *[(c, XidPoints.APPLICATION) for c in (13, 31, 43)],
        *[(c, XidPoints.NODE) for c in (48, 63, 64, 74, 79, 94, 95)],
        (999, XidPoints.NODE),  # not in the table: never blamed on the code
    ],
)
def test_the_table(code, points):
    xid = xid_in(f"NVRM: Xid (PCI:0000:3b:00): {code}, pid=4121, name=python")
    assert xid is not None
    assert (xid.code, xid.points) == (code, points)


@pytest.mark.parametrize(
    "text", ["NVRM: Xid (PCI:0000:3b:00): 79, pid=1", "Xid 79 reported", "XID=79", "xid: 79"]
)
def test_the_wordings(text):
    xid = xid_in(text)
    assert xid is not None
    assert xid.code == 79


def _crash_with_log(line: str, *, node_down: bool = False):
    log = f"step 1200 loss 1.93\n{line}\nRuntimeError: CUDA error: unspecified launch failure\n"
    failing = failing_line(log)
    assert failing is not None
    redactor = Redactor()
    quoted = log_signal(
        failing, container="trainer", cite=LOGS, redactor=redactor, pod="bert-ft-0-0"
    )
    signals = [quoted, *line_facts(quoted, failing.text, log=log, redactor=redactor)]
    if node_down:
        node = KubeNode.model_validate(
            {
                "metadata": {"name": "dgx-a100-07"},
                "status": {
                    "conditions": [
                        {
                            "type": "Ready",
                            "status": "False",
                            "reason": "KubeletNotReady",
                            "message": "container runtime is down",
                            "lastTransitionTime": iso(ago(10)),
                        }
                    ]
                },
            }
        )
        signals.extend(node_signals(node, since=ago(60 * 24), redactor=redactor))
    ev = evidence(
        workload(phaseMessage="container trainer terminated with exit code 1"),
        pods=[runai_pod("Error", containers=[{"name": "trainer"}])],
    )
    ev = ev.model_copy(update={"signals": (*ev.signals, *signals), "tier2": True})
    return compose(ev, classify(ev))


XID_79 = "[Tue Nov 4 07:44:01 2025] NVRM: Xid (PCI:0000:3b:00): 79, pid=4121, GPU has fallen off the bus."
XID_13 = "NVRM: Xid (PCI:0000:3b:00): 13, pid=4121, Graphics Exception: ESR 0x50e730=0x3b0d"


def test_an_application_xid_is_the_application_s():
    report = _crash_with_log(XID_13)

    assert report.category is Category.CRASH_APP_ERROR
    assert report.details["log_kind"] == "gpu-app-fault"
    assert report.recovery_owner == "User: fix code or configuration"
    assert "compute-sanitizer" in " ".join(report.recommendations)
    assert any("Xid 13" in e.text for e in report.evidence)


def test_a_hardware_xid_alone_leaves_the_verdict_to_the_rules():
    report = _crash_with_log(XID_79)

    assert report.category is Category.CRASH_APP_ERROR  # no node signal: not NODE_FAILURE
    assert report.details["log_kind"] == "gpu-hardware"
    assert "SRE" in (report.recovery_owner or "")
    assert any("Xid 79: GPU has fallen off the bus" in e.text for e in report.evidence)
    assert "after its log reported Xid 79 (GPU has fallen off the bus)" in report.headline
    assert "ECC" not in report.headline


def test_a_hardware_xid_with_the_node_signal_is_cited_in_the_node_failure():
    report = _crash_with_log(XID_79, node_down=True)

    assert report.category is Category.NODE_FAILURE
    assert any("Xid 79: GPU has fallen off the bus" in e.text for e in report.evidence)
