"""Report buttons: stable action ids, values read back, and the Run:ai link from settings."""

from __future__ import annotations

import pytest

from bot.render.actions import (
    OPEN_IN_RUNAI,
    REPORT_ACTION_IDS,
    RERUN,
    SHOW_ALL_EVIDENCE,
    ActionTarget,
    runai_workload_url,
)

CLUSTER = "2b7c3d1e-9f4a-4c58-a1d6-5e8f0b3c7d92"
WORKLOAD = "3f1c2a9e-5b7d-4c1e-9a2f-8d6b0e4c7a11"


def test_the_action_ids_are_the_documented_ones():
    assert REPORT_ACTION_IDS == (SHOW_ALL_EVIDENCE, RERUN, OPEN_IN_RUNAI)
    assert REPORT_ACTION_IDS == ("show_all_evidence", "rerun", "open_in_runai")


@pytest.mark.parametrize("lookback", ["24h", "7d", None])
def test_a_value_reads_back_as_written(lookback):
    target = ActionTarget(CLUSTER, WORKLOAD, lookback)
    value = target.to_value()
    assert value is not None
    assert ActionTarget.from_value(value) == target


@pytest.mark.parametrize(
    ("cluster", "workload"),
    [("<!channel>", WORKLOAD), (CLUSTER, "a b"), (CLUSTER, ""), ("x" * 200, WORKLOAD)],
)
def test_ids_that_are_not_id_shaped_never_travel_in_a_button(cluster, workload):
    assert ActionTarget(cluster, workload).to_value() is None


def test_an_odd_lookback_is_left_out_of_the_value():
    value = ActionTarget(CLUSTER, WORKLOAD, "since <yesterday>").to_value()
    assert value is not None
    assert ActionTarget.from_value(value).lookback is None


@pytest.mark.parametrize(
    "value",
    [
        "",
        "not json",
        "[]",
        '{"cluster_id": "c"}',
        '{"cluster_id": "c", "workload_id": 7}',
        '{"cluster_id": "<c>", "workload_id": "w"}',
        '{"cluster_id": "c", "workload_id": "w", "lookback": "forever and ever"}',
    ],
)
def test_values_this_module_did_not_write_are_refused(value):
    with pytest.raises(ValueError, match=r"report action value|lookback"):
        ActionTarget.from_value(value)


@pytest.mark.parametrize(
    ("runai_url", "cluster", "workload", "url"),
    [
        ("https://acme.run.ai", CLUSTER, WORKLOAD,
         f"https://acme.run.ai/workloads?clusterId={CLUSTER}&workloadId={WORKLOAD}"),
        ("https://acme.run.ai/", CLUSTER, WORKLOAD,
         f"https://acme.run.ai/workloads?clusterId={CLUSTER}&workloadId={WORKLOAD}"),
        ("https://acme.example.com/runai/", "c1", "w1",
         "https://acme.example.com/runai/workloads?clusterId=c1&workloadId=w1"),
        ("http://127.0.0.1:8600", "c1", "w1",
         "http://127.0.0.1:8600/workloads?clusterId=c1&workloadId=w1"),
        (None, CLUSTER, WORKLOAD, None),
        ("", CLUSTER, WORKLOAD, None),
        ("javascript:alert(1)", CLUSTER, WORKLOAD, None),
        ("acme.run.ai", CLUSTER, WORKLOAD, None),  # no scheme, no host.
        ("https://acme.run.ai/?next=evil", CLUSTER, WORKLOAD, None),
        ("https://acme.run.ai", "../../evil", WORKLOAD, None),
        ("https://acme.run.ai", CLUSTER, "x&workloadId=evil", None),
        ("https://acme.run.ai", CLUSTER, "<https://evil|click>", None),
    ],
)  # fmt: skip
def test_the_run_ai_link_is_built_only_from_settings_and_ids(runai_url, cluster, workload, url):
    assert runai_workload_url(runai_url, cluster, workload) == url
