"""The buttons on a report: which ones, stable action ids, their value, the Run:ai link.

`report_buttons` decides, for every platform, which buttons a report carries; Slack draws
them as Block Kit buttons, Teams as card actions. A front end routes a click by `action_id`
and hands the button's value (`report_target`) to the engine with the click, which reads it
back with `ActionTarget.from_value` to find the answer the button is on: by its workload and
a short digest of the report itself (`answer_id`), so two answers about one workload in a
thread are told apart. The value only addresses an answer; it never decides what is shown.
The "Open in Run:ai" link is built only from the configured control-plane URL and the IDs,
and only when every ID looks like an ID: text from upstream never becomes part of a link.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from urllib.parse import urlencode, urlsplit

from diagnosis import Outcome, Report

__all__ = [
    "ACTIONLESS_OUTCOMES",
    "OPEN_IN_RUNAI",
    "REPORT_ACTION_IDS",
    "RERUN",
    "RUNAI_WORKLOADS_PATH",
    "SHOW_ALL_EVIDENCE",
    "URL_MAX",
    "VALUE_MAX",
    "ActionTarget",
    "ReportButton",
    "answer_id",
    "report_buttons",
    "report_target",
    "runai_workload_url",
]

SHOW_ALL_EVIDENCE = "show_all_evidence"
"""Posts every evidence line and the failing log lines in the report's thread."""
RERUN = "rerun"
"""Checks again: the same diagnosis (same cluster, workload ID and lookback), shown as
"Check again" (the value stays `rerun`, so buttons already posted keep working)."""
OPEN_IN_RUNAI = "open_in_runai"
"""A link button: Slack opens the URL and still sends the click, which needs only an ack."""
REPORT_ACTION_IDS = (SHOW_ALL_EVIDENCE, RERUN, OPEN_IN_RUNAI)
#: The Run:ai UI's workloads page; the IDs go in its query string. Its deep-link format is
#: not in the API reference, so it lives here, once.
RUNAI_WORKLOADS_PATH = "/workloads"

#: Outcomes that are not an answer about the workload: nothing to show more of or check again.
ACTIONLESS_OUTCOMES = frozenset({Outcome.NEEDS_INPUT, Outcome.NOT_FOUND, Outcome.CLUSTER_MISMATCH})

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$")
_LOOKBACK = re.compile(r"^[0-9]{1,6}[a-z]{1,3}$")
_ANSWER = re.compile(r"^[0-9a-f]{16}$")
#: The longest button value and link made: Slack's button limits (2,000 and 3,000
#: characters), which Teams' card actions are held to as well. `tests/bot/slack/render`
#: checks them against slack_sdk.
VALUE_MAX = 2_000
URL_MAX = 3_000


@dataclass(frozen=True)
class ActionTarget:
    """What a report button acts on: the workload by ID on its cluster, and the lookback.

    `answer` is the `answer_id` of the report the button is on (None on buttons posted
    before it was carried).
    """

    cluster_id: str
    workload_id: str
    lookback: str | None = None
    answer: str | None = None

    def to_value(self) -> str | None:
        """The button value (compact JSON), or None when an ID is not ID-shaped.

        Only ID-shaped values travel in a button (a UUID, a name-like ID): whatever upstream
        put in an ID field never becomes a value Slack stores and sends back.
        """
        if not (_ID.match(self.cluster_id) and _ID.match(self.workload_id)):
            return None
        body = {"cluster_id": self.cluster_id, "workload_id": self.workload_id}
        if self.lookback and _LOOKBACK.match(self.lookback):
            body["lookback"] = self.lookback
        if self.answer and _ANSWER.match(self.answer):
            body["answer"] = self.answer
        value = json.dumps(body, separators=(",", ":"), ensure_ascii=False)
        return value if len(value) <= VALUE_MAX else None

    @classmethod
    def from_value(cls, value: str) -> ActionTarget:
        """Read a button value back.

        Raises:
            ValueError: the value is not one this module wrote.
        """
        try:
            body = json.loads(value)
        except (json.JSONDecodeError, RecursionError) as error:  # nested past Python's stack
            raise ValueError("not a report action value") from error
        if not isinstance(body, dict):
            body = {}  # reported below as a value without IDs.
        cluster, workload, lookback, answer = (
            body.get("cluster_id"),
            body.get("workload_id"),
            body.get("lookback"),
            body.get("answer"),
        )
        if not (isinstance(cluster, str) and cluster and isinstance(workload, str) and workload):
            raise ValueError("a report action value needs cluster_id and workload_id")
        if not (_ID.match(cluster) and _ID.match(workload)):
            raise ValueError("a report action value carries ID-shaped IDs only")
        if lookback is not None and not (isinstance(lookback, str) and _LOOKBACK.match(lookback)):
            raise ValueError("lookback must look like 24h or 7d")
        if answer is not None and not (isinstance(answer, str) and _ANSWER.match(answer)):
            raise ValueError("answer must be an answer_id")
        return cls(cluster, workload, lookback, answer)


def answer_id(report: Report) -> str:
    """A short digest of `report`: which of a thread's answers a button is on.

    The same report read back from the thread's stored state gives the same digest. It is
    an address only, never a secret: what a click may show is checked as for any request.
    """
    text = json.dumps(report.model_dump(mode="json"), ensure_ascii=True)  # any text digests
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def report_target(report: Report, lookback: str | None) -> str | None:
    """The value of the buttons on `report`: its `ActionTarget`; None without ID-shaped IDs."""
    w = report.workload
    if w is None or not w.id or not w.cluster_id:
        return None
    return ActionTarget(w.cluster_id, w.id, lookback, answer_id(report)).to_value()


def runai_workload_url(runai_url: str | None, cluster_id: str, workload_id: str) -> str | None:
    """`<RUNAI_URL>/workloads?clusterId=…&workloadId=…`, or None when it cannot be made safely.

    None without a configured http(s) URL with a host, or when an ID is not ID-shaped.
    """
    if not runai_url or not (_ID.match(cluster_id) and _ID.match(workload_id)):
        return None
    base = urlsplit(runai_url.strip())
    if base.scheme not in {"https", "http"} or not base.hostname or base.query or base.fragment:
        return None
    path = base.path.rstrip("/") + RUNAI_WORKLOADS_PATH
    query = urlencode({"clusterId": cluster_id, "workloadId": workload_id})
    url = f"{base.scheme}://{base.netloc}{path}?{query}"
    return url if len(url) <= URL_MAX else None


@dataclass(frozen=True)
class ReportButton:
    """One button of a report: its action id, its label, and the URL of a link button."""

    action_id: str
    label: str
    url: str | None = None


def report_buttons(
    report: Report, lookback: str | None, runai_url: str | None
) -> tuple[ReportButton, ...]:
    """The report's buttons, in order: Show all evidence, Check again, Open in Run:ai.

    None for an outcome that is not an answer or without the workload's IDs; the first two
    only when the IDs are ID-shaped, "Show all evidence" only when there is evidence, and
    the link only when `runai_workload_url` can build it.
    """
    w = report.workload
    if w is None or not w.id or not w.cluster_id or report.outcome in ACTIONLESS_OUTCOMES:
        return ()
    buttons: list[ReportButton] = []
    if ActionTarget(w.cluster_id, w.id, lookback).to_value() is not None:
        if report.evidence:
            buttons.append(ReportButton(SHOW_ALL_EVIDENCE, "Show all evidence"))
        buttons.append(ReportButton(RERUN, "Check again"))
    url = runai_workload_url(runai_url, w.cluster_id, w.id)
    if url is not None:
        buttons.append(ReportButton(OPEN_IN_RUNAI, "Open in Run:ai", url))
    return tuple(buttons)
