"""One parser for `/runai-why` text and free-text mentions: identifiers, lookback, intent.

It never guesses a value that is not in the text: a cluster *name* stays a name (the
engine resolves it against the control plane's list, exactly), and anything it cannot
place is left out rather than forced into a slot.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field, replace
from enum import StrEnum

from diagnosis import InvalidRequest, Symptom, parse_lookback

__all__ = ["Expecting", "Query", "parse"]

_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_NAME = r"[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?"
_UUID_RE = re.compile(rf"^{_UUID}$")
_NAME_RE = re.compile(rf"^{_NAME}$")
_MENTION_RE = re.compile(r"<@[A-Z0-9]+(?:\|[^>]*)?>")
_KEY_VALUE_RE = re.compile(
    r"\b(cluster|workload|id|project|lookback|symptom)\s*[=:]\s*(\S+)", re.IGNORECASE
)
_CLUSTER_RE = re.compile(rf"\b(?:on|in|at)?\s*cluster\s+({_UUID}|{_NAME})\b", re.IGNORECASE)
_PROJECT_RE = re.compile(rf"\b(?:in\s+)?project\s+({_NAME})\b|\bin\s+({_NAME})\b", re.IGNORECASE)
_NAMED_WORKLOAD_RE = re.compile(rf"\b(?:workload|job)\s+({_NAME})\b", re.IGNORECASE)
_LOOKBACK_RE = re.compile(
    r"\b(?:last|past|lookback|over the last|in the last)\s+(\d+)\s*"
    r"(m|min|mins|minutes?|h|hrs?|hours?|d|days?|w|weeks?)\b",
    re.IGNORECASE,
)
_HELP_WORDS = frozenset({"help", "-h", "--help", "?", "usage"})
_PAST = re.compile(
    r"\b(did|was|were|failed|crashed|died|last run|yesterday|earlier)\b", re.IGNORECASE
)
_SYMPTOMS: tuple[tuple[Symptom, re.Pattern[str]], ...] = (
    (
        Symptom.INIT,
        re.compile(r"\binit(?:ialization)?[- ]?(?:container|error)?\b|\binit:", re.IGNORECASE),
    ),
    (
        Symptom.IMAGE_PULL,
        re.compile(r"image ?pull|errimagepull|imagepullbackoff|\bpull(ing)?\b", re.IGNORECASE),
    ),
    (Symptom.MOUNT, re.compile(r"\bmount|failedmount|\bvolume|\bpvc\b", re.IGNORECASE)),
    (
        Symptom.CRASHLOOP,
        re.compile(
            r"crash ?loop|crashloopbackoff|keeps? (crashing|restarting)|restart(ing)? loop",
            re.IGNORECASE,
        ),
    ),
    (
        Symptom.STARTUP,
        re.compile(
            r"won'?t start|not starting|stuck (starting|creating)|\bstartup\b", re.IGNORECASE
        ),
    ),
    (Symptom.FAILED_POD, re.compile(r"\bfailed pod\b|\bpod (is )?failing\b", re.IGNORECASE)),
)
_STOP = frozenset(
    """why did does do is are was my our the a an workload job run runs fail failed failing
    crash crashed crashing what who killed happened to with on in of at for cluster project
    please die died stop stopped help me tell explain diagnose check look it this that
    keeps keep stuck pod pods last past hours days training why's whats what's can you""".split()  # noqa: SIM905 - words read best as prose
)


class Expecting(StrEnum):
    """What the bot last asked for, so a bare reply like `prod-a` lands in the right slot."""

    CLUSTER = "cluster"
    PROJECT = "project"
    WORKLOAD = "workload"


@dataclass(frozen=True)
class Query:
    """What the user said, slot by slot. `cluster` may be a UUID or a cluster name."""

    cluster: str | None = None
    workload_id: str | None = None
    workload_name: str | None = None
    project: str | None = None
    lookback: str | None = None
    symptom: Symptom | None = None
    help: bool = False
    problems: tuple[str, ...] = field(default=())


def _clean(text: str, bot_user_id: str | None) -> str:
    text = html.unescape(text)  # Slack escapes &, < and > in user text
    if bot_user_id:
        text = re.sub(rf"<@{re.escape(bot_user_id)}(?:\|[^>]*)?>", " ", text)
    text = _MENTION_RE.sub(" ", text)
    return " ".join(text.replace("`", " ").split())


def _lookback(amount: str, unit: str) -> str:
    return f"{amount}{unit[0].lower()}" if unit[0].lower() != "m" else f"{amount}m"


def _key_values(text: str, query: Query) -> tuple[str, Query]:
    problems = list(query.problems)
    values: dict[str, str] = {}
    for raw_key, raw in _KEY_VALUE_RE.findall(text):
        value = raw.strip(".,;!?\"'")
        key = raw_key.lower()
        if key == "symptom":
            try:
                values["symptom"] = Symptom(value.lower()).value
            except ValueError:
                problems.append(
                    f"symptom {value!r} is not one of {', '.join(s.value for s in Symptom)}"
                )
        elif key in {"workload", "id"}:
            values["workload"] = value
        else:
            values[key] = value
    text = _KEY_VALUE_RE.sub(" ", text)
    workload = values.get("workload")
    return text, replace(
        query,
        cluster=values.get("cluster"),
        workload_id=workload if workload and _UUID_RE.match(workload) else None,
        workload_name=workload.lower() if workload and not _UUID_RE.match(workload) else None,
        project=values.get("project", "").lower() or None,
        lookback=values.get("lookback"),
        symptom=Symptom(values["symptom"]) if "symptom" in values else None,
        problems=tuple(problems),
    )


def _take(pattern: re.Pattern[str], text: str) -> tuple[str, re.Match[str] | None]:
    """Find `pattern` and cut the match out of the text so no other slot reuses it."""
    match = pattern.search(text)
    if match is None:
        return text, None
    return text[: match.start()] + " " + text[match.end() :], match


def _workload(
    text: str, workload_id: str | None, name: str | None
) -> tuple[str | None, str | None]:
    if name is None:
        rest, match = _take(_NAMED_WORKLOAD_RE, text)
        candidate = match.group(1) if match else None
        if candidate and candidate.lower() not in _STOP and not _UUID_RE.match(candidate):
            text, name = rest, candidate
    for raw in re.split(r"[\s,;!?]+", text):
        token = raw.strip(".:'\"()[]")
        if _UUID_RE.match(token):
            workload_id = workload_id or token
        elif (
            name is None
            and token.lower() not in _STOP
            and _NAME_RE.match(token)
            and any(ch.isdigit() or ch == "-" for ch in token)
        ):
            name = token
    return workload_id, name


def _free_text(text: str, query: Query) -> Query:
    cluster, lookback, project = query.cluster, query.lookback, query.project
    if cluster is None:
        text, match = _take(_CLUSTER_RE, text)
        cluster = match.group(1) if match else None
    if lookback is None:
        text, match = _take(_LOOKBACK_RE, text)
        lookback = _lookback(match.group(1), match.group(2)) if match else None
    if project is None:
        rest, match = _take(_PROJECT_RE, text)
        candidate = (match.group(1) or match.group(2)).lower() if match else None
        if candidate and candidate not in _STOP:
            text, project = rest, candidate
    workload_id, workload_name = _workload(text, query.workload_id, query.workload_name)
    symptom = query.symptom
    if symptom is None and not _PAST.search(text):
        symptom = next((s for s, rx in _SYMPTOMS if rx.search(text)), None)
    return replace(
        query,
        cluster=cluster,
        lookback=lookback,
        project=project,
        workload_id=workload_id,
        workload_name=workload_name,
        symptom=symptom,
    )


def _expected(text: str, expecting: Expecting | None, query: Query) -> tuple[str, Query]:
    """A bare one-word reply fills the slot the bot asked for, and is consumed."""
    words = text.split()
    if expecting is None or len(words) != 1:
        return text, query
    word = words[0].strip(".,;!?\"'")
    if expecting is Expecting.CLUSTER and query.cluster is None:
        return "", replace(query, cluster=word)
    if expecting is Expecting.PROJECT and query.project is None and _NAME_RE.match(word.lower()):
        return "", replace(query, project=word.lower())
    if expecting is Expecting.WORKLOAD and not _UUID_RE.match(word) and _NAME_RE.match(word):
        return "", replace(query, workload_name=word)
    return text, query


def _validated(query: Query) -> Query:
    problems = list(query.problems)
    if query.lookback is not None:
        try:
            parse_lookback(query.lookback)
        except InvalidRequest as error:
            problems.append(str(error))
            query = replace(query, lookback=None)
    if query.workload_name is not None and not _NAME_RE.match(query.workload_name):
        problems.append(f"{query.workload_name!r} is not a valid workload name")
        query = replace(query, workload_name=None)
    return replace(query, problems=tuple(problems))


def parse(
    text: str, *, bot_user_id: str | None = None, expecting: Expecting | None = None
) -> Query:
    """Parse a slash-command text or a mention into slots (pure, never raises)."""
    cleaned = _clean(text, bot_user_id)
    if cleaned.lower() in _HELP_WORDS:
        return Query(help=True)
    rest, query = _key_values(cleaned, Query())
    rest, query = _expected(rest.strip(), expecting, query)
    query = _free_text(rest, query)
    return _validated(query)
