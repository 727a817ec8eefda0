"""Where a name stands in free text, and what never is one: a time, a version, a machine."""

from __future__ import annotations

import re

from bot.conversation.software import is_software
from bot.conversation.understand.vocabulary import is_common
from bot.conversation.words import NOT_NAMES

__all__ = [
    "CLUSTER_AT",
    "CLUSTER_OR",
    "CLUSTER_RES",
    "NAMED_WORKLOAD_RE",
    "NAME_RE",
    "PROJECT_IN",
    "PROJECT_OR",
    "PROJECT_RES",
    "UUID_RE",
    "bare_version",
    "could_be_name",
    "either",
    "excluded",
    "node_shaped",
    "subjects",
    "take",
    "without_hosts",
]

# A cluster after `on`/`at`/`cluster`, a project after `in`/`project`, a workload after
# `job`/`workload`. Every pattern is possessive and linear (`bot.conversation.parse_bounds`).
_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
# A name: letters and digits with `.` or `-` between them, read possessively (each character
# once; see `parse_bounds`). It ends at its last letter or digit: `prod-a.` is `prod-a`.
_NAME = r"[A-Za-z0-9]++(?:[.-]++[A-Za-z0-9]++)*+"
_MAX_NAME = 253  # a Kubernetes name (DNS subdomain); a longer word is never a name
UUID_RE = re.compile(rf"^{_UUID}$")
NAME_RE = re.compile(r"^[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?$")
# `on X`, `at X`, `in X` say where only by their preposition: a workload stands there too
# (`OOM on train-bert`), so what they read is also kept apart (`Query.placed`).
CLUSTER_AT = re.compile(
    rf"\b(?:on|at)\s++(?:the\s++)?({_UUID}|{_NAME})(?:\s++cluster)?\b", re.IGNORECASE
)
PROJECT_IN = re.compile(rf"\bin\s++(?:the\s++)?({_NAME})(?:\s++project)?\b", re.IGNORECASE)
CLUSTER_RES = (
    re.compile(rf"\bcluster\s++(?:is\s++|called\s++|named\s++)?({_UUID}|{_NAME})", re.IGNORECASE),
    CLUSTER_AT,
)
PROJECT_RES = (
    re.compile(rf"\bproject\s++(?:is\s++|called\s++|named\s++)?({_NAME})", re.IGNORECASE),
    PROJECT_IN,
    # From the start of a word only (past a leading `-` or `.`): from every `-` inside
    # `a-a-a-…`, the name before `project` was read again, 252 characters each time.
    re.compile(rf"(?<![\w.-])[.-]*+({_NAME})\s++project\b", re.IGNORECASE),
)
NAMED_WORKLOAD_RE = re.compile(
    rf"\b(?:workload|job)\s++(?:is\s++|called\s++|named\s++)?({_NAME})", re.IGNORECASE
)
# A machine, never a cluster or a workload: `node dgx-07`, `the gpu-7 node`, `running on
# dgx-07` (a known cluster's exact name there is linked back: `understand.linking`).
_NODE_FIRST = re.compile(
    rf"(?<![\w.-])(?:nodes?|host|machine|server)\s++(?:is\s++|was\s++|called\s++|named\s++)?"
    rf"({_NAME})",
    re.IGNORECASE,
)
# `the gpu-7 node`, `2 a100 nodes`; a plural only after `the` or a number (`resnet-ddp nodes
# went NotReady` names the workload). The machine word is whole: `node-exporter-test` is
# a name, not `node`.
_NODE_AFTER = re.compile(
    rf"(?<![\w.-])((?:the|\d++)\s++)?[.-]*+({_NAME})\s++(nodes?|hosts?)(?![\w.-])",
    re.IGNORECASE,
)
_RUNNING_ON = re.compile(
    rf"\b(?:running|ran|runs|scheduled|placed|landed)\s++on\s++(?:the\s++)?(?:node\s++)?{_NAME}",
    re.IGNORECASE,
)
# `on prod-a or prod-b`, `in either nlp or vision`: both named, which one is asked.
CLUSTER_OR = re.compile(
    rf"\b(?:on|at)\s++(?:either\s++)?(?:the\s++)?({_NAME})\s++or\s++(?:on\s++|at\s++)?(?:the\s++)?"
    rf"({_NAME})\b",
    re.IGNORECASE,
)
PROJECT_OR = re.compile(
    rf"\bin\s++(?:either\s++)?(?:the\s++)?({_NAME})\s++or\s++(?:in\s++)?(?:the\s++)?({_NAME})\b",
    re.IGNORECASE,
)
# `not nlp`, `not on prod-b`, `eval-7, not train-bert`: a name said not to be meant.
_NOT = re.compile(rf"\bnot\s++(?:on\s++|in\s++|at\s++)?(?:the\s++)?({_NAME})", re.IGNORECASE)
_MAX_EXCLUDED = 8
_HOST_SHAPED = re.compile(r"[0-9-]")
# A word shaped like a workload's name (a digit or a `-` inside), for `without_hosts`.
_CANDIDATE = re.compile(
    r"(?<![\w.-])(?:[a-z0-9]++(?:-[a-z0-9]++)++|[a-z]++[0-9][a-z0-9]*+)", re.IGNORECASE
)
# `torch-2.3`, `cuda-12.4`: a version, never a name unless given as one (`job llama-3.1`)
# or as what failed (`_SUBJECT_RES`). Not because a workload cannot be called that: the
# Run:ai API's `WorkloadName` is only `minLength: 1, pattern: .*` (shared/reference
# runai-openapi-2.24-subset.json), so `job qwen-2.5` and `why did qwen-2.5 fail` read it.
_VERSION_RE = re.compile(r"^[a-z][a-z0-9]*+(?:-[a-z][a-z0-9]*+)*+-\d++(?:\.\d++)++$", re.IGNORECASE)
_TIME_RE = re.compile(r"^\d+(?:[.:]\d+)*(?:am|pm)?$", re.IGNORECASE)
# `Q4`, `v1.2.3`; `x12`, how often `kubectl describe` saw an event (`3m (x12 over 25m)`);
# an amount of memory (`64Gi`, `80GB`, `512Mi`)
_NEVER_RE = re.compile(
    r"^(?:q[1-4]|v\d++(?:\.\d++)++|x\d++|\d++(?:\.\d++)?+(?:[kmgtp]i?b?|[kmgtp]ib))$",
    re.IGNORECASE,
)
# `v2`: part of a workload's name as often as a release (`the v3 one` is yolo-train-v3), so a
# name only where nothing else names the workload (`parse`), never beside one (`eval-7 (v2)`).
_BARE_VERSION_RE = re.compile(r"^v\d++$", re.IGNORECASE)
# A machine by the shape of its name (`dgx-a100-07`, `node-12`, `gpu-node-3`, `ip-10-0-1-7`,
# `ip-10-0-1-7.ec2.internal`): in a thread about a workload, `on` it names no workload.
_NODE_SHAPED_RE = re.compile(
    r"^(?:(?:dgx|node|gpu-node)-[a-z0-9]|ip-\d++-)|\.(?:compute|ec2)\.internal$", re.IGNORECASE
)
# ... yet the subject of a failure is the workload it names: `why did qwen-2.5 fail`, `is
# qwen-2.5 crashlooping?`, `qwen-2.5 failed in nlp` (a version is what was bumped, never
# what failed or is stuck). Each starts at a question word, the text's start or a clause's.
# Not what a library does: `cuda-12.4 failed to load` (only `fail to start`, `… to run`),
# `torch-2.3 crashed my job` (a verb with an object), `torch-2.3 restart loop?`.
_FAILED = (
    r"(?:(?:still|just|also|keeps?|kept|has|had|got|gets|is|was|been)\s++)*+"
    r"(?:fail|crash|die[sd]?\b|dying|oom|stuck|pending|queued|hang|hung|evicted|preempted|"
    r"restart|killed)[a-z]*+"
    r"(?!\s++(?:to\s++(?!start|run|schedul|launch|begin|boot|come\s)|loops?\b"
    r"|(?:my|our|your|his|her|their|its|it|the|this|that|every|all)\b"
    r"|[a-z0-9]++[.-][a-z0-9]|[a-z]++[0-9]))"
)
_NAMED_AS = r"(?:\s++(?:job|workload|run|training))?+"  # `why did the qwen-2.5 job fail`
_LEADING = r"(?:hey|hi|so|and|but|also|now|ok|okay|is|did|does|has|was|the|our|my)"
_SUBJECT_RES = (
    re.compile(
        rf"\b(?:why|how|when)\s++(?:did|does|do|is|was|has|have|are|were)\s++(?:the\s++)?"
        rf"({_NAME}){_NAMED_AS}\s++{_FAILED}",
        re.IGNORECASE,
    ),
    re.compile(
        rf"(?:^|[.!?;,:]\s)\s*+(?:{_LEADING}\s++)*+({_NAME}){_NAMED_AS}\s++{_FAILED}",
        re.IGNORECASE,
    ),
)


def could_be_name(word: str, *, version: bool = False) -> bool:
    """Not a small word, a number, a time of day (`from`, `hmm`, `42`, `3pm`) or too long.

    Nor a version (`torch-2.3`) or a library (`nccl`, `cuda-12.4`: `bot.conversation.software`),
    unless `version`: the word was given as a name (`job cuda-test`), nor a bare `v2` (see
    `bare_version`); and never a quarter, a dotted version number, an event count or an
    amount of memory (`Q4`, `v1.2.3`, `x12`, `64Gi`).
    """
    return (
        len(word) <= _MAX_NAME
        and word.lower() not in NOT_NAMES
        and not _TIME_RE.match(word)
        and not _NEVER_RE.match(word)
        and (version or not (_VERSION_RE.match(word) or _BARE_VERSION_RE.match(word)))
        and (version or not is_software(word))
    )


def bare_version(word: str) -> bool:
    """`v2`: a name only where nothing else names the workload (`could_be_name` says no)."""
    return bool(_BARE_VERSION_RE.match(word))


def node_shaped(word: str) -> bool:
    """Whether `word` is shaped like a machine's name (`dgx-a100-07`, `ip-10-0-1-7`)."""
    return bool(_NODE_SHAPED_RE.search(word))


def subjects(text: str) -> frozenset[str]:
    """The names a failure is said of (`why did qwen-2.5 fail`): names, versions or not.

    Never a library (`why does nccl-2.18 hang`): what the workload runs is not what failed.
    """
    said = (m.group(1).lower() for p in _SUBJECT_RES for m in p.finditer(text))
    return frozenset(n for n in said if not is_software(n))


def take(
    pattern: re.Pattern[str], text: str, *, version: bool = False
) -> tuple[str, re.Match[str] | None]:
    """The first match whose name could be a name, cut out of the text."""
    for match in pattern.finditer(text):
        if could_be_name(match.group(1), version=version):
            return text[: match.start()] + " " + text[match.end() :], match
    return text, None


def without_hosts(text: str) -> str:
    """`text` without the machines it names (`node dgx-07`, `gpu-7 node`, `running on dgx-07`)."""
    text = _NODE_FIRST.sub(lambda m: " " if _HOST_SHAPED.search(m.group(1)) else m.group(0), text)
    names = {n.lower() for n in _CANDIDATE.findall(text) if could_be_name(n)}

    def cut(match: re.Match[str]) -> str:
        if match.group(1):  # `the gpu-7 node`, `2 a100 nodes`
            return " "
        plural = match.group(3).lower().endswith("s")
        only = names == {match.group(2).lower()}  # never the one workload named
        return match.group(0) if plural or only else " "

    return _NODE_AFTER.sub(cut, _RUNNING_ON.sub(" ", text))


def either(pattern: re.Pattern[str], text: str) -> tuple[str, tuple[str, ...]]:
    """The two names of the first `X or Y` (`CLUSTER_OR`, `PROJECT_OR`), cut out of the text."""
    for match in pattern.finditer(text):
        first, second = match.group(1), match.group(2)
        if could_be_name(first) and could_be_name(second) and first.lower() != second.lower():
            return text[: match.start()] + " " + text[match.end() :], (first, second)
    return text, ()


def excluded(text: str) -> tuple[str, tuple[str, ...]]:
    """The names said not to be meant (`not nlp`), cut out of the text, in order."""
    names: list[str] = []

    def cut(match: re.Match[str]) -> str:
        name = match.group(1).lower()
        if not could_be_name(name) or is_common(name) or len(names) >= _MAX_EXCLUDED:
            return match.group(0)  # `not sure`, `not yet`: no name
        names.append(name)
        return " "

    return _NOT.sub(cut, text), tuple(dict.fromkeys(names))
