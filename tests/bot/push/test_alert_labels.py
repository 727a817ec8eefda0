"""What an alert's labels say about a Run:ai workload, or why they say nothing (a table)."""

from __future__ import annotations

from typing import Any

import pytest

from bot.alerts.labels import Unmapped, read_alert
from bot.alerts.payload import Alert
from bot.push import AlertSpec


def _alert(status: str = "firing", **labels: str) -> Alert:
    return Alert.model_validate(
        {
            "status": status,
            "labels": labels,
            "startsAt": "2026-11-26T09:14:03.117Z",
            "endsAt": "2026-11-26T10:00:00Z",
            "fingerprint": "abc",
        }
    )


POD = {"alertname": "KubePodCrashLooping", "namespace": "runai-nlp", "pod": "bert-0-0"}


@pytest.mark.parametrize(
    ("labels", "default", "expected"),
    [
        (
            POD | {"cluster": "prod-a"},
            None,
            {"cluster": "prod-a", "project": "nlp", "pod": "bert-0-0"},
        ),
        (POD, "prod-b", {"cluster": "prod-b", "project": "nlp", "pod": "bert-0-0"}),
        (POD | {"reason": "CrashLoopBackOff"}, "c", {"symptom": "crashloop"}),
        (POD | {"reason": "ImagePullBackOff"}, "c", {"symptom": "image-pull"}),
        (POD | {"reason": "ErrImagePull"}, "c", {"symptom": "image-pull"}),
        (POD | {"reason": "ContainerCreating"}, "c", {"symptom": None}),
        (
            {"namespace": "runai-nlp", "label_run_ai_top_owner_uid": "u-1"},
            "c",
            {"workload_id": "u-1", "pod": None},
        ),
        ({"namespace": "runai-nlp", "label_workload_name": "bert"}, "c", {"workload_name": "bert"}),
        (
            {"exported_namespace": "runai-cv", "exported_pod": "yolo-0-0"},
            "c",
            {"project": "cv", "pod": "yolo-0-0"},
        ),
        # DCGM, scraped without honoured labels: `pod`/`namespace` are the exporter's own
        (
            {
                "alertname": "GPUXidError",
                "namespace": "gpu-operator",
                "pod": "nvidia-dcgm-exporter-x7k2p",
                "exported_namespace": "runai-cv",
                "exported_pod": "resnet-ddp-master-0",
            },
            "c",
            {"project": "cv", "pod": "resnet-ddp-master-0"},
        ),
        # a name goes into the API's filter: a Run:ai name, as an asked one, or nothing
        (
            {"namespace": "runai-nlp", "label_workload_name": "bert,projectName==hr"},
            "c",
            "invalid_name",
        ),
        ({"namespace": "runai-nlp", "label_workload_name": "Bert FT"}, "c", "invalid_name"),
        (POD | {"namespace": "runai-nlp,clusterId==x"}, "c", "invalid_name"),
        (POD, None, "no_cluster"),
        ({"pod": "x-0-0"}, "c", "no_namespace"),
        (POD | {"namespace": "kube-system"}, "c", "not_a_project_namespace"),
        (POD | {"namespace": "runai-"}, "c", "not_a_project_namespace"),
        ({"namespace": "runai-nlp"}, "c", "no_workload_labels"),
        # a batch Job's alert names kube-state-metrics' own pod: never read
        (
            {"alertname": "KubeJobFailed", "namespace": "runai-nlp", "pod": "ksm-0"},
            "c",
            "no_workload_labels",
        ),
        (
            {
                "alertname": "KubeJobFailed",
                "namespace": "runai-nlp",
                "pod": "ksm-0",
                "label_workload_name": "w",
            },
            "c",
            {"pod": None, "workload_name": "w"},
        ),
    ],
)
def test_read_alert(labels: dict[str, str], default: str | None, expected: Any):
    read = read_alert(_alert(**labels), default_cluster=default)
    if isinstance(expected, str):
        assert read == Unmapped(expected)
        return
    assert isinstance(read, AlertSpec)
    assert {k: getattr(read, k) for k in expected} == expected
    assert read.key == "abc:2026-11-26T09:14:03.117Z"


def test_a_resolved_alert_keeps_its_end_a_firing_one_does_not():
    resolved = read_alert(_alert("resolved", **POD), default_cluster="c")
    firing = read_alert(_alert("firing", **POD), default_cluster="c")
    assert isinstance(resolved, AlertSpec)
    assert isinstance(firing, AlertSpec)
    assert (resolved.ends_at, firing.ends_at) == ("2026-11-26T10:00:00Z", None)


def test_label_values_are_bounded():
    read = read_alert(_alert(**(POD | {"pod": "p" * 5000})), default_cluster="c")
    assert isinstance(read, AlertSpec)
    assert read.pod == "p" * 1024
