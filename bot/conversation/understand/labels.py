"""Pasted label sets (`namespace=runai-nlp pod=bert-ft-0-0`, `Namespace: runai-nlp`) as slots."""

from __future__ import annotations

import re

from bot.conversation.understand.found import UUID_RE, Found
from bot.conversation.understand.vocabulary import is_common

__all__ = ["read_labels"]

_CLUSTER_KEYS = {"cluster", "cluster_name", "clustername", "cluster_id", "clusterid"}
_PROJECT_KEYS = {"project", "projectname", "project_name", "label_project"}
_NAMESPACE_KEYS = {"namespace", "exported_namespace", "ns"}
_POD_KEYS = {"pod", "exported_pod", "pod_name", "podname"}
_NAME_KEYS = {"workload", "workloadname", "workload_name", "label_workload_name", "job_name"}
_ID_KEYS = {"id", "workloadid", "workload_id", "label_run_ai_top_owner_uid", "top-owner-uid"}
_ID_KEYS |= {"run.ai/top-owner-uid", "uuid"}
_KEYS = _CLUSTER_KEYS | _PROJECT_KEYS | _NAMESPACE_KEYS | _POD_KEYS | _NAME_KEYS | _ID_KEYS
_PARSE_KEYS = frozenset({"lookback", "symptom"})
_COLON_KEYS = "|".join(re.escape(k) for k in sorted(_KEYS, key=len, reverse=True))
# `key=value` for any key (a paste's other labels are dropped); `key: value` only for the
# keys read here (`Namespace: runai-nlp`), since `note: prod-a is down` is prose.
_PAIR = re.compile(
    rf"(?<![\w./-])(?:({_COLON_KEYS})(:)|([A-Za-z][\w.]*+(?:/[\w.-]++)?)[ \t]*+(=)~?)"
    r"[ \t]*+[\"']?+([A-Za-z0-9][\w.:/-]*+)[\"']?+",
    re.IGNORECASE,
)


_KUBE_STATE_METRICS = "kube-state-metrics"


def read_labels(text: str, found: Found) -> str:
    """`text` without its label pairs, what they name put into `found`. Linear in the text.

    Read: the keys that name a cluster, project, namespace, pod or workload; every other
    `key=value` (alertname, uid, container, job…) is dropped with its value, except those
    `bot.conversation.parse` reads itself. Where the scrape target's own labels stand beside
    the metric's, the target's are dropped (`_targets_own`).
    """
    ignored = _targets_own(text)
    return _PAIR.sub(lambda m: _pair(m, found, ignored), text)


def _targets_own(text: str) -> frozenset[str]:
    """The keys that hold the scrape target's own labels here, never the workload's.

    Beside `exported_pod` (a DCGM alert), `pod` and `namespace` are the exporter's; with
    `job_name` (KubeJobFailed) or a kube-state-metrics `pod`/`container`, `pod` is
    kube-state-metrics' own, and the Job's name is the workload's to look for.
    """
    keys, theirs = set(), False
    for match in _PAIR.finditer(text):
        key = (match.group(1) or match.group(3)).lower()
        keys.add(key)
        value = match.group(5).lower()
        theirs = theirs or (key in {"pod", "container"} and value.startswith(_KUBE_STATE_METRICS))
    ignored = set()
    if any(key.startswith("exported_") for key in keys):
        ignored |= {"pod", "namespace"}  # the DCGM exporter's pod, in gpu-operator
    if theirs or "job_name" in keys:
        ignored.add("pod")  # kube-state-metrics' own pod, beside the Job it reports on
    return frozenset(ignored)


def _pair(match: re.Match[str], found: Found, ignored: frozenset[str]) -> str:
    key = (match.group(1) or match.group(3)).lower()
    value = match.group(5).rstrip(".:/-")
    if key in ignored:
        return " "
    if key in _PARSE_KEYS:
        return match.group(0)  # `lookback=7d`, `symptom=init`: bot.conversation.parse reads them
    if match.group(2) and is_common(value):
        return match.group(0)  # `pod: checking`: prose after all
    if key in _CLUSTER_KEYS:
        found.cluster = found.cluster or value
    elif key in _PROJECT_KEYS:
        found.project = found.project or value.lower()
    elif key in _NAMESPACE_KEYS:
        found.set_namespace(value)
    elif key in _POD_KEYS:
        found.add_pod(value)
    elif key in _NAME_KEYS or key in _ID_KEYS:
        if UUID_RE.match(value):
            found.workload_id = found.workload_id or value.lower()
        elif key in _NAME_KEYS:
            found.add_name(value)
    elif UUID_RE.match(value):
        found.ignored_uuids.add(value.lower())  # a pod `uid`: never the workload's ID
    return " "
