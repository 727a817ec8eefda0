"""One parser for `/runai-why` text, mentions and thread replies: slots, lookback, intent.

It never guesses a value that is not in the text: a cluster *name* stays a name (the
engine resolves it against the control plane's list), and anything it cannot place is left
out rather than forced into a slot. Small words and chatter (`from`, `hmm`, `ugh`) are never
names; the words the bot itself offers (`init`, `image pull`, `crash loop`) are symptoms.
"""

from __future__ import annotations

import html
import re
from dataclasses import replace

from bot.conversation.intent import FollowUp, intent
from bot.conversation.parse_bounds import bounded
from bot.conversation.query import Expecting, Query
from bot.conversation.words import (
    CHATTER,
    FILLER,
    NOT_NAMES,
    PAST,
    SYMPTOMS,
    THANKS,
    find_lookback,
)
from diagnosis import InvalidRequest, Symptom, parse_lookback

__all__ = ["Expecting", "FollowUp", "Query", "parse"]

_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
# A name: letters and digits with `.` or `-` between them, read possessively (each character
# once; see `parse_bounds`). It ends at its last letter or digit: `prod-a.` is `prod-a`.
_NAME = r"[A-Za-z0-9]++(?:[.-]++[A-Za-z0-9]++)*+"
_MAX_NAME = 253  # a Kubernetes name (DNS subdomain); a longer word is never a name
_MAX_OTHERS = 8  # further names kept after the first; the engine answers only a few
_UUID_RE = re.compile(rf"^{_UUID}$")
_NAME_RE = re.compile(r"^[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?$")
# A mention's label stops at the next `<`, where another mention could start.
_MENTION_RE = re.compile(r"<@[A-Z0-9]++(?:\|[^<>]*+)?>")
# `&#` and more digits than the last code point has: U+FFFD, as html.unescape would say,
# without the int() that raises past `sys.get_int_max_str_digits()` and is quadratic below.
_HUGE_CHARREF = re.compile(r"&#[0-9]{8,}+;?")
_KEY_VALUE_RE = re.compile(
    r"\b(cluster|workload|id|project|lookback|symptom)\s*+[=:]\s*+(\S++)", re.IGNORECASE
)
_CLUSTER_RES = (
    re.compile(rf"\bcluster\s++(?:is\s++|called\s++|named\s++)?({_UUID}|{_NAME})", re.IGNORECASE),
    re.compile(rf"\b(?:on|at)\s++(?:the\s++)?({_UUID}|{_NAME})(?:\s++cluster)?\b", re.IGNORECASE),
)
_PROJECT_RES = (
    re.compile(rf"\bproject\s++(?:is\s++|called\s++|named\s++)?({_NAME})", re.IGNORECASE),
    re.compile(rf"\bin\s++(?:the\s++)?({_NAME})(?:\s++project)?\b", re.IGNORECASE),
    # From the start of a word only (past a leading `-` or `.`): from every `-` inside
    # `a-a-a-…`, the name before `project` was read again, 252 characters each time.
    re.compile(rf"(?<![\w.-])[.-]*+({_NAME})\s++project\b", re.IGNORECASE),
)
_NAMED_WORKLOAD_RE = re.compile(
    rf"\b(?:workload|job)\s++(?:is\s++|called\s++|named\s++)?({_NAME})", re.IGNORECASE
)
# A machine, never a cluster or a workload: `node dgx-07`, `the gpu-7 node`, `running on
# dgx-07` (a known cluster's exact name there is linked back: `understand.linking`).
_NODE_FIRST = re.compile(
    rf"\b(?:nodes?|host|machine|server)\s++(?:is\s++|was\s++|called\s++|named\s++)?({_NAME})",
    re.IGNORECASE,
)
_NODE_AFTER = re.compile(rf"(?<![\w.-])[.-]*+{_NAME}\s++(?:nodes?|hosts?)\b", re.IGNORECASE)
_RUNNING_ON = re.compile(
    rf"\b(?:running|ran|runs|scheduled|placed|landed)\s++on\s++(?:the\s++)?(?:node\s++)?{_NAME}",
    re.IGNORECASE,
)
_HOST_SHAPED = re.compile(r"[0-9-]")
# `torch-2.3`, `cuda-12.4`: a version, never a name unless given as one (`job llama-3.1`).
_VERSION_RE = re.compile(r"^[a-z][a-z0-9]*+(?:-[a-z][a-z0-9]*+)*+-\d++(?:\.\d++)++$", re.IGNORECASE)
_TIME_RE = re.compile(r"^\d+(?:[.:]\d+)*(?:am|pm)?$", re.IGNORECASE)
_HELP_WORDS = frozenset({"help", "-h", "--help", "?", "usage", "how does this work"})


def _clean(text: str, bot_user_id: str | None) -> str:
    text = html.unescape(_HUGE_CHARREF.sub("\ufffd", text))  # Slack escapes &, < and >
    if bot_user_id:
        text = re.sub(rf"<@{re.escape(bot_user_id)}(?:\|[^<>]*+)?>", " ", text)
    text = _MENTION_RE.sub(" ", text).replace("\u2019", "'").replace("`", " ")
    return " ".join(text.split())


_PUNCTUATION = ".,;:!?\"'()[]*_~<>"


def _words(text: str) -> list[str]:
    return [w for w in (raw.strip(_PUNCTUATION) for raw in text.lower().split()) if w]


def _could_be_name(word: str, *, version: bool = False) -> bool:
    """Not a small word, a number, a time of day (`from`, `hmm`, `42`, `3pm`) or too long.

    Nor a version (`torch-2.3`), unless `version`: the word was given as a name.
    """
    return (
        len(word) <= _MAX_NAME
        and word.lower() not in NOT_NAMES
        and not _TIME_RE.match(word)
        and (version or not _VERSION_RE.match(word))
    )


def _take(
    pattern: re.Pattern[str], text: str, *, version: bool = False
) -> tuple[str, re.Match[str] | None]:
    """The first match whose name could be a name, cut out of the text."""
    for match in pattern.finditer(text):
        if _could_be_name(match.group(1), version=version):
            return text[: match.start()] + " " + text[match.end() :], match
    return text, None


def _key_values(text: str) -> tuple[str, Query]:
    problems: list[str] = []
    values: dict[str, str] = {}
    for raw_key, raw in _KEY_VALUE_RE.findall(text):
        value, key = raw.strip(".,;!?\"'"), raw_key.lower()
        if key == "symptom":
            try:
                values["symptom"] = Symptom(value.lower()).value
            except ValueError:
                problems.append(
                    f"symptom {value!r} is not one of {', '.join(s.value for s in Symptom)}"
                )
        else:
            values["workload" if key == "id" else key] = value
    workload = values.get("workload")
    is_id = bool(workload and _UUID_RE.match(workload))
    return _KEY_VALUE_RE.sub(" ", text), Query(
        cluster=values.get("cluster"),
        workload_id=workload if is_id else None,
        workload_name=workload.lower() if workload and not is_id else None,
        project=values.get("project", "").lower() or None,
        lookback=values.get("lookback"),
        symptom=Symptom(values["symptom"]) if "symptom" in values else None,
        problems=tuple(problems),
    )


def _intent(text: str, query: Query) -> tuple[str, Query]:
    """Follow-ups and a picked number (`bot.conversation.intent`), with the text left."""
    found = intent(text)
    if found.pick is None and found.follow_up is None:
        return text, query
    return found.rest, replace(query, pick=found.pick, follow_up=found.follow_up)


def _slot_words(text: str, *, version: bool) -> list[str]:
    """The words of a reply that could be a value, without `it's`, `please`, `I think`."""
    return [w for w in _words(text) if _could_be_name(w, version=version)]


def _expected(text: str, expecting: Expecting | None, query: Query) -> tuple[str, Query]:
    """A reply that is one value (`prod-a`, `it's prod-a`, `ML-Team please`) fills the slot."""
    words = _slot_words(text, version=expecting is Expecting.WORKLOAD)
    if expecting is None or len(words) != 1:
        return text, query
    word = next(w.strip(_PUNCTUATION) for w in text.split() if _words(w) == words)
    if query.workload_name and expecting is not Expecting.WORKLOAD:
        return text, query  # `job bert-2`: the reply names a workload, not the slot asked
    if expecting is Expecting.CLUSTER and query.cluster is None:
        return "", replace(query, cluster=word)
    if expecting is Expecting.PROJECT and query.project is None and _NAME_RE.match(words[0]):
        return "", replace(query, project=words[0])
    if (
        expecting is Expecting.WORKLOAD
        and query.workload_name is None
        and not _UUID_RE.match(word)
        and _NAME_RE.match(words[0])
    ):
        return "", replace(query, workload_name=words[0])
    return text, query


def _workload(text: str, query: Query, *, bare: bool) -> Query:
    workload_id, name, others = query.workload_id, query.workload_name, list(query.others)
    for raw in text.split():
        token = raw.strip(_PUNCTUATION).lower()
        if _UUID_RE.match(token):
            workload_id = workload_id or token
        elif (
            bare
            and _could_be_name(token)
            and _NAME_RE.match(token)
            and any(ch.isdigit() or ch == "-" for ch in token)
        ):
            if name is None:
                name = token
            elif token != name and token not in others and len(others) < _MAX_OTHERS:
                others.append(token)  # `why did a-1 and b-2 fail`: never dropped silently
    return replace(query, workload_id=workload_id, workload_name=name, others=tuple(others))


def _free_text(text: str, query: Query, expecting: Expecting | None, *, reply: bool) -> Query:
    if query.lookback is None:
        text, lookback = find_lookback(text, asked=reply)
        query = replace(query, lookback=lookback)
    symptom = query.symptom
    if symptom is None and not PAST.search(text):
        symptom = next((s for s, rx in SYMPTOMS if rx.search(text)), None)
    query = replace(query, symptom=symptom)
    text = _hosts(text)
    if query.cluster is None:
        for pattern in _CLUSTER_RES:
            text, match = _take(pattern, text)
            if match:
                query = replace(query, cluster=match.group(1))
                break
    if query.project is None:
        for pattern in _PROJECT_RES:
            text, match = _take(pattern, text)
            if match:
                query = replace(query, project=match.group(1).lower())
                break
    if query.workload_name is None:
        rest, match = _take(_NAMED_WORKLOAD_RE, text, version=True)
        if match and not _UUID_RE.match(match.group(1)):
            text, query = rest, replace(query, workload_name=match.group(1).lower())
    text, query = _expected(text, expecting, query)
    # Asked for a cluster or a project, "prod-a or prod-b" is not a workload: only a workload
    # given with its project (`train-bert in nlp`), by keyword or by ID changes it.
    bare = expecting not in {Expecting.CLUSTER, Expecting.PROJECT} or query.project is not None
    return _workload(text, query, bare=bare)


def _hosts(text: str) -> str:
    """`text` without the machines it names (`node dgx-07`, `gpu-7 node`, `running on dgx-07`)."""
    text = _NODE_FIRST.sub(lambda m: " " if _HOST_SHAPED.search(m.group(1)) else m.group(0), text)
    return _NODE_AFTER.sub(" ", _RUNNING_ON.sub(" ", text))


def _chatter(text: str) -> bool:
    words = _words(text)
    emoji = all(re.fullmatch(r":[a-z0-9_+-]++:|[^\w\s]++", w) for w in words)
    small = all(w in CHATTER or w in FILLER for w in words)
    return bool(words) and (words[0] in THANKS or emoji or small)


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
    if query.project is not None and not _NAME_RE.match(query.project):
        problems.append(f"{query.project!r} is not a valid project name")
        query = replace(query, project=None)
    return replace(query, problems=tuple(problems))


def parse(
    text: str,
    *,
    bot_user_id: str | None = None,
    expecting: Expecting | None = None,
    reply: bool = False,
) -> Query:
    """Parse a slash-command text, a mention or a thread reply into slots (pure, never raises).

    `expecting` is what the bot last asked for: a reply that is just one value fills it.
    `reply`: a plain reply in a thread, where a time is a lookback only when asked for
    (`what about the last 3 days?`, not `it ran fine last week`; `words.asked_for`).
    Only the first `MAX_PARSED_CHARS` characters are read (`parse_bounds`); how many
    more there were is `ignored_chars`.
    """
    capped = bounded(text)
    query = _parse(capped.text, bot_user_id, expecting, reply=reply)
    return replace(query, ignored_chars=capped.ignored) if capped.ignored else query


def _parse(
    text: str, bot_user_id: str | None, expecting: Expecting | None, *, reply: bool = False
) -> Query:
    cleaned = _clean(text, bot_user_id)
    if cleaned.lower().strip(" !.") in _HELP_WORDS:
        return Query(help=True)
    rest, query = _key_values(cleaned)
    if query == Query() and _chatter(rest):
        rest, lookback = find_lookback(rest, asked=reply)
        rest, intent = _intent(rest, Query(lookback=lookback))
        if intent.follow_up is None and intent.lookback is None:
            return Query(chatter=True)  # "thanks! I think it's the node dgx-07": not for me
        return _validated(intent)
    rest, query = _intent(rest, query)
    if query.pick is not None:
        return _validated(query)  # `0 project=/`: a pick never carries an invalid slot
    return _validated(_free_text(rest, query, expecting, reply=reply))
