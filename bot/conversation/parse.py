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

from bot.conversation.intent import FollowUp, intent, symptom_asked
from bot.conversation.names import (
    CLUSTER_AT,
    CLUSTER_OR,
    CLUSTER_RES,
    NAME_RE,
    NAMED_WORKLOAD_RE,
    PROJECT_IN,
    PROJECT_OR,
    PROJECT_RES,
    UUID_RE,
    bare_version,
    could_be_name,
    either,
    excluded,
    subjects,
    take,
    without_hosts,
)
from bot.conversation.parse_bounds import bounded
from bot.conversation.query import Expecting, Query
from bot.conversation.software import is_software
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

__all__ = ["Expecting", "FollowUp", "Query", "parse", "symptom_said"]

_MAX_OTHERS = 8  # further names kept after the first; the engine answers only a few
_PUNCTUATION = ".,;:!?\"'()[]*_~<>"
_EITHER = 2  # `ml-team or nlp`: two names for one slot
# A mention's label stops at the next `<`, where another mention could start.
_MENTION_RE = re.compile(r"<@[A-Z0-9]++(?:\|[^<>]*+)?>")
# `&#` and more digits than the last code point has: U+FFFD, as html.unescape would say,
# without the int() that raises past `sys.get_int_max_str_digits()` and is quadratic below.
_HUGE_CHARREF = re.compile(r"&#[0-9]{8,}+;?")
_KEY_VALUE_RE = re.compile(
    r"\b(cluster|workload|id|project|lookback|symptom)\s*+[=:]\s*+(\S++)", re.IGNORECASE
)
_HELP_WORDS = frozenset({"help", "-h", "--help", "?", "usage", "how does this work"})


def _clean(text: str, bot_user_id: str | None) -> str:
    text = html.unescape(_HUGE_CHARREF.sub("\ufffd", text))  # Slack escapes &, < and >
    if bot_user_id:
        text = re.sub(rf"<@{re.escape(bot_user_id)}(?:\|[^<>]*+)?>", " ", text)
    text = _MENTION_RE.sub(" ", text).replace("\u2019", "'").replace("`", " ")
    return " ".join(text.split())


def _words(text: str) -> list[str]:
    return [w for w in (raw.strip(_PUNCTUATION) for raw in text.lower().split()) if w]


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
    is_id = bool(workload and UUID_RE.match(workload))
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
    """The words of a reply that could be a value, without `it's`, `please`, `I think`.

    Never a library or a GPU (`it was fine on torch 2.2`, `OOM on a100 again`), not even
    where a workload is asked for: what a workload runs on is never its name.
    """
    return [w for w in _words(text) if could_be_name(w, version=version) and not is_software(w)]


def _one_word(text: str, words: list[str]) -> bool:
    """Whether the reply is that one word and small words (`it's prod-a please`), no sentence.

    An amount, a version or a library dropped from `words` still counts: `still OOMing with
    64Gi` and `bumped to 128Gi and now pending` say something else than a name.
    """
    return len(words) == 1 and len([w for w in _words(text) if w not in NOT_NAMES]) == 1


def _expected(text: str, expecting: Expecting | None, query: Query) -> tuple[str, Query]:
    """A reply that is one value (`prod-a`, `it's prod-a`, `ML-Team please`) fills the slot."""
    words = _slot_words(text, version=expecting is Expecting.WORKLOAD)
    if len(words) == _EITHER and {"or", "either"}.intersection(_words(text)):
        return _either(text, expecting, query, (words[0], words[1]))
    if expecting is None or not _one_word(text, words) or query.excluded:
        return text, query  # `vision not ml-team`: which slot `vision` is, linking says
    word = next(w.strip(_PUNCTUATION) for w in text.split() if _words(w) == words)
    if query.workload_name and expecting is not Expecting.WORKLOAD:
        return text, query  # `job bert-2`: the reply names a workload, not the slot asked
    if expecting is Expecting.CLUSTER and query.cluster is None:
        return "", replace(query, cluster=word)
    if expecting is Expecting.PROJECT and query.project is None and NAME_RE.match(words[0]):
        return "", replace(query, project=words[0])
    if (
        expecting is Expecting.WORKLOAD
        and query.workload_name is None
        and not UUID_RE.match(word)
        and NAME_RE.match(words[0])
    ):
        return "", replace(query, workload_name=words[0])
    return text, query


def _either(
    text: str, expecting: Expecting | None, query: Query, options: tuple[str, str]
) -> tuple[str, Query]:
    """`ml-team or nlp` in reply to "Which project?": both named, so which one is asked."""
    if query.workload_name or query.cluster_options or query.project_options:
        return text, query
    if expecting is Expecting.CLUSTER and query.cluster is None:
        return "", replace(query, cluster_options=options)
    if expecting is Expecting.PROJECT and query.project is None:
        return "", replace(query, project_options=options)
    return text, query


def _workload(text: str, query: Query, *, bare: bool) -> Query:
    """The workload names and ID of the free text; a version only as what failed (`versions`)."""
    workload_id, name, others = query.workload_id, query.workload_name, list(query.others)
    failed = subjects(text) if bare else frozenset()  # `why did qwen-2.5 fail`: not a version
    versions: dict[str, None] = {}
    released: str | None = None  # `the v3 one`: a name only if nothing else is one
    for raw in text.split():
        token = raw.strip(_PUNCTUATION).lower().removesuffix("'s")  # `train-bert's pods`
        if UUID_RE.match(token):
            workload_id = workload_id or token
        elif not (bare and NAME_RE.match(token) and any(ch.isdigit() or ch == "-" for ch in token)):
            continue
        elif could_be_name(token):
            if name is None:
                name = token
            elif token != name and token not in others and len(others) < _MAX_OTHERS:
                others.append(token)  # `why did a-1 and b-2 fail`: never dropped silently
        elif bare_version(token):
            released = released or token
        elif token in failed and could_be_name(token, version=True):
            versions.setdefault(token)  # `why did qwen-2.5 fail`: linking decides
    if name is None and workload_id is None and not versions and not others:
        name = released
    return replace(
        query,
        workload_id=workload_id,
        workload_name=name,
        others=tuple(others),
        versions=tuple(versions)[:_MAX_OTHERS],
    )


def _free_text(text: str, query: Query, expecting: Expecting | None, *, reply: bool) -> Query:
    if query.lookback is None:
        text, lookback = find_lookback(text, asked=reply)
        query = replace(query, lookback=lookback)
    symptom = query.symptom
    if symptom is None and not PAST.search(text):
        symptom = _symptom(text, asked=reply and expecting is None)
    query = replace(query, symptom=symptom)
    text, unmeant = excluded(without_hosts(text))
    query = replace(query, excluded=unmeant)
    text, query = _cluster_and_project(text, query)
    if query.workload_name is None:
        rest, match = take(NAMED_WORKLOAD_RE, text, version=True)
        if match and not UUID_RE.match(match.group(1)):
            text, query = rest, replace(query, workload_name=match.group(1).lower())
    text, query = _expected(text, expecting, query)
    # Asked for a cluster or a project, "prod-a or prod-b" is not a workload: only a workload
    # given with its project (`train-bert in nlp`), by keyword or by ID changes it.
    bare = expecting not in {Expecting.CLUSTER, Expecting.PROJECT} or query.project is not None
    return _workload(text, query, bare=bare)


def _symptom(text: str, *, asked: bool) -> Symptom | None:
    """The first symptom named; `asked`: in a plain reply after an answer, one asked of the bot.

    `still crashlooping here` there is talk, never a new diagnosis (`intent.symptom_asked`);
    a reply to a question of the bot (`crash loop`, `yes, stuck in init`) always counts.
    """
    for symptom, pattern in SYMPTOMS:
        match = pattern.search(text)
        if match is not None:
            return symptom if not asked or symptom_asked(text, *match.span()) else None
    return None


def symptom_said(text: str) -> Symptom | None:
    """The first symptom `text` names, asked or not (`eval-7: CrashLoopBackOff`)."""
    return None if PAST.search(text) else _symptom(_clean(text, None), asked=False)


def _cluster_and_project(text: str, query: Query) -> tuple[str, Query]:
    """The cluster (`on prod-a`) and the project (`in nlp`), and two named for one (`X or Y`).

    Both are kept: `in vision … either in the dataloader or the model` names the project
    and an or-phrase that may be no names at all; linking keeps the options only if they
    are known (`understand.linking`), and never over a value named on its own.
    """
    placed = list(query.placed)
    if query.cluster is None:
        text, options = either(CLUSTER_OR, text)
        text, cluster, by = _first(CLUSTER_RES, text)
        placed += [cluster] if cluster and by is CLUSTER_AT else []
        query = replace(query, cluster=cluster, cluster_options=options)
    if query.project is None:
        text, options = either(PROJECT_OR, text)
        text, project, by = _first(PROJECT_RES, text)
        project = project.lower() if project else None
        placed += [project] if project and by is PROJECT_IN else []
        query = replace(query, project=project, project_options=options)
    return text, replace(query, placed=tuple(placed))


def _first(
    patterns: tuple[re.Pattern[str], ...], text: str
) -> tuple[str, str | None, re.Pattern[str] | None]:
    """The name the first of `patterns` that finds one reads, cut out of the text, and it."""
    for pattern in patterns:
        text, match = take(pattern, text)
        if match:
            return text, match.group(1), pattern
    return text, None, None


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
    if query.workload_name is not None and not NAME_RE.match(query.workload_name):
        problems.append(f"{query.workload_name!r} is not a valid workload name")
        query = replace(query, workload_name=None)
    if query.project is not None and not NAME_RE.match(query.project):
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
    if query.lookback is None:  # before `rerun` is cut: `rerun with 48h` asks for the time
        rest, lookback = find_lookback(rest, asked=reply)
        query = replace(query, lookback=lookback)
    rest, query = _intent(rest, query)
    if query.pick is not None:
        return _validated(query)  # `0 project=/`: a pick never carries an invalid slot
    return _validated(_free_text(rest, query, expecting, reply=reply))
