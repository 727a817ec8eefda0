"""The scheduler's own words for "why not placed", as data: typed reasons and message shapes.

One table, in the spirit of `diagnosis.lexicon`: a new wording is one line here, and the rules
never match strings themselves. Typed reason codes (`OverLimit`, `NonPreemptibleOverQuota`,
`QueueDoesNotExist`, ...) are matched first; the message shapes are the KAI scheduler's and the
Kubernetes predicates' texts (Run:ai's byte-identical use of them is unconfirmed, so a reason
code always wins over a text). Numbers are captured where the text carries them: the
scheduler's own figures win over recomputed ones.
"""

from __future__ import annotations

import re
from enum import StrEnum

__all__ = ["MAX_TEXT", "REASON_CODES", "TEXTS", "FitPart", "Saying", "fit_parts", "read_text"]

#: How much of one upstream text is read: scheduler texts are short, and every pattern here
#: is bounded, so a hostile 50,000-character message costs linear time, not quadratic.
MAX_TEXT = 4_000


class Saying(StrEnum):
    """What one scheduler text says about a Pending workload."""

    OVER_LIMIT = "over_limit"
    NON_PREEMPTIBLE_OVER_QUOTA = "non_preemptible_over_quota"
    QUEUE_MISSING = "queue_missing"
    GROUPER_FAILED = "grouper_failed"
    NOT_READY = "not_ready"
    GATED = "gated"
    PREEMPTION_DELAY = "preemption_delay"
    GANG = "gang"
    LARGEST_NODE = "largest_node"
    NO_GPU_NODE = "no_gpu_node"
    PVC = "pvc"
    GPU_KIND = "gpu_kind"
    FIT = "fit"
    PIPELINED = "pipelined"


#: Typed reason codes (API `phaseReason`, PodGroup `reasons[].reason`, event reasons).
REASON_CODES: dict[str, Saying] = {
    "overlimit": Saying.OVER_LIMIT,
    "nonpreemptibleoverquota": Saying.NON_PREEMPTIBLE_OVER_QUOTA,
    "queuedoesnotexist": Saying.QUEUE_MISSING,
    "podgrouperwarning": Saying.GROUPER_FAILED,
    "notready": Saying.NOT_READY,
    "schedulinggated": Saying.GATED,
    "preemptiondelaynotelapsed": Saying.PREEMPTION_DELAY,
    "pipelined": Saying.PIPELINED,
}


def _num(name: str) -> str:
    """A named number group (`4`, `0.5`), bounded like every pattern here."""
    return rf"(?P<{name}>\d{{1,12}}(?:\.\d{{1,6}})?)"


#: A named, bounded, space-free name (a queue or node pool): `_NAME.format("queue")`.
_NAME = r"(?P<{}>\S{{1,253}})"


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


#: Message shapes, tried in order; named groups are the numbers and names they carry.
TEXTS: tuple[tuple[Saying, re.Pattern[str]], ...] = (
    (
        Saying.OVER_LIMIT,
        _rx(
            _NAME.format("queue") + r" quota has reached the allowable limit of "
            r"(?P<resource>GPUs|CPU cores|memory)\. Limit is "
            + _num("limit")
            + r" (?P<unit>\S{1,16}), "
            r"currently "
            + _num("allocated")
            + r" \S{1,16} allocated and workload requested "
            + _num("requested")
        ),
    ),
    (
        Saying.NON_PREEMPTIBLE_OVER_QUOTA,
        _rx(
            r"Non-preemptible workload is over quota\. Workload requested "
            + _num("requested")
            + r" GPUs, but "
            + _NAME.format("queue")
            + r" quota is "
            + _num("deserved")
            + r" GPUs, while "
            + _num("allocated_np")
            + r" GPUs are already allocated"
        ),
    ),
    (Saying.NON_PREEMPTIBLE_OVER_QUOTA, _rx(r"\bnon-preemptible over quota\b")),
    (Saying.QUEUE_MISSING, _rx(r"Queue '(?P<queue>[^']{1,253})' does not exist")),
    (
        Saying.NOT_READY,
        _rx(
            r"Job is not ready for scheduling\. Waiting for (?P<required>\d{1,9}) pods, "
            r"currently (?P<exist>\d{1,9}) exist, (?P<gated>\d{1,9}) are gated"
        ),
    ),
    (
        Saying.PREEMPTION_DELAY,
        _rx(
            r"within its preemption delay window \((?P<delay>[^)]{1,32})\) and may not trigger "
            r"evictions before (?P<until>\S{1,64}?)\.?$"
        ),
    ),
    (
        Saying.GANG,
        _rx(
            r"Resources were found for (?P<found>\d{1,9}) pods while (?P<required>\d{1,9}) are "
            r"required for gang scheduling"
        ),
    ),
    (
        Saying.LARGEST_NODE,
        _rx(
            r"Max GPU resources available in a single node in the "
            + _NAME.format("pool")
            + r" node-pool is topped at "
            + _num("largest")
        ),
    ),
    (
        Saying.NO_GPU_NODE,
        _rx(r"No node in the " + _NAME.format("pool") + r" node-pool has GPU resources"),
    ),
    (
        Saying.PVC,
        _rx(
            r"unbound immediate PersistentVolumeClaims"
            r"|didn't find available persistent volumes to bind|volume node affinity conflict"
            r"|did not have enough free storage"
        ),
    ),
    (
        Saying.GPU_KIND,
        _rx(
            r"MIG job cannot be scheduled on non-MIG node|only whole gpu jobs can run on a node"
            r" with MigStrategy|non MIG jobs cant run on a node with MigStrategy"
            r"|fractional/shared GPU pods are not yet supported on DRA-only nodes"
            r"|can't run on non gpu nodes|didn't have enough of mig profile"
            r"|Each gpu on the node has a gpu memory capacity of"
        ),
    ),
    (
        Saying.FIT,
        _rx(
            r"node\(s\) didn't|node\(s\) had untolerated taint|nodes are available|Insufficient "
            r"nvidia\.com/gpu|no nodes with enough resources|Node didn't have enough resources"
            r"|node-group\(s\) didn't have enough resources|Unable to schedule pod"
        ),
    ),
)


class FitPart(StrEnum):
    """What one line of a fit-error histogram blames."""

    CONSTRAINT = "constraint"  # node affinity/selector, taints, pod (anti-)affinity
    SHORTAGE = "shortage"  # not enough GPUs/CPU/memory on the node now
    OTHER = "other"


_CONSTRAINT = _rx(
    r"didn't match Pod's node affinity|didn't match pod (?:anti-)?affinity|untolerated taint"
    r"|node selector|didn't satisfy existing pods anti-affinity"
)
_SHORTAGE = _rx(
    r"enough resources|Insufficient (?:nvidia\.com/gpu|cpu|memory)|pod number exceeded"
    r"|didn't have enough"
)
_HISTOGRAM_ITEM = re.compile(
    r"\b\d{1,6}\s{1,3}(?:node\(s\)|Insufficient)\s[^\n]{0,300}?(?=\.(?:\s|$)|\n|$)", re.IGNORECASE
)


def fit_parts(text: str) -> set[FitPart]:
    """What each `<count> node(s) …` item of a fit histogram blames (empty: no histogram)."""
    found: set[FitPart] = set()
    for match in _HISTOGRAM_ITEM.finditer(text[:MAX_TEXT]):
        item = match.group(0)
        if _CONSTRAINT.search(item):
            found.add(FitPart.CONSTRAINT)
        elif _SHORTAGE.search(item):
            found.add(FitPart.SHORTAGE)
        else:
            found.add(FitPart.OTHER)
    return found


def read_text(reason: str | None, message: str | None) -> tuple[Saying, dict[str, str]] | None:
    """What a (reason, message) pair says, with the values it carries; None if nothing.

    A message shape that carries numbers wins over the bare reason code, so the scheduler's
    figures are kept; otherwise the typed reason decides, then the first matching shape.
    """
    text = (message or "")[:MAX_TEXT]
    coded = REASON_CODES.get((reason or "").replace(" ", "").lower()[:64])
    for saying, pattern in TEXTS:
        match = pattern.search(text)
        if match and (coded is None or saying is coded or saying is Saying.FIT):
            if coded is not None and saying is Saying.FIT:
                break  # the code is more specific than a generic fit text
            return saying, {k: v for k, v in match.groupdict().items() if v is not None}
    return (coded, {}) if coded is not None else None
