"""Identifiers a message carries explicitly: Run:ai links, label sets, command lines, compact forms.

These are read before any free-text guessing, because they are not guesses: a `workloadId`
in a Run:ai link, `namespace=runai-nlp` in a pasted alert, `-p nlp` on a `runai` command
line. What was read is cut out of the text, so the words left over (for the parser) are
only what the person wrote themselves. Pod names are kept as pods (`pod=`, `pod/…`,
`<namespace>/<pod>`): a pod is resolved to its workload through the workload's pods, never
by trimming its suffix. Every pattern runs in linear time (`bot.conversation.parse_bounds`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from urllib.parse import parse_qsl, urlsplit

from bot.conversation.understand.found import (
    MAX_FOUND,
    NAME_RE,
    NAMESPACE_PREFIX,
    UUID,
    UUID_RE,
    Found,
)
from bot.conversation.understand.labels import read_labels
from bot.conversation.understand.markup import Link
from bot.conversation.understand.tables import read_tables
from bot.conversation.understand.vocabulary import is_common

__all__ = ["MAX_FOUND", "NAMESPACE_PREFIX", "Found", "extract"]

_NAME = r"[A-Za-z0-9]++(?:[._-]++[A-Za-z0-9]++)*+"
_WORKLOAD_PATH = re.compile(
    rf"/(?:workloads|trainings|workspaces|inferences|distributed(?:-inferences)?)/({UUID})",
    re.IGNORECASE,
)
#: Where a typed command line ends and prose goes on (`runai describe x -p nlp on prod-a`).
_PROSE = frozenset({"on", "in", "at", "says", "said", "shows", "gives", "and", "but", "why"})
_KUBECTL = re.compile(r"(?<![\w-])kubectl\b[^\n]*+")
_RUNAI_CLI = re.compile(r"(?<![\w./-])runai[ \t]++[^\n]*+")
_ALERT_TITLE = re.compile(r"\[(?:FIRING|RESOLVED)(?::\d++)?\][^\n]*+", re.IGNORECASE)
_COMPACT = re.compile(rf"(?<![\w./:@-])({_NAME})/({_NAME})(?![\w/])")
_PAREN = re.compile(rf"(?<![\w.-])({_NAME})[ \t]*+\([ \t]*+({_NAME})[ \t]*+\)")
#: Where a cluster stands (`on prod-a (nlp)`): the word just before a `name (project)`.
_PLACE = re.compile(r"(?:^|\s)(?:on|at)[ \t]++$", re.IGNORECASE)
_PLACE_CHARS = 4  # ` on ` or ` at `, and the spaces `_PAREN` allows after it
_POD_SHAPE = re.compile(r"-\d++-\d++$")
_LETTER = re.compile(r"[a-z]")


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


_CLI_WORDS = _set(
    """training workload workloads workspace workspaces inference standard pytorch mpi
    tensorflow tf xgboost jax distributed describe logs log list get delete bash exec attach
    suspend resume top job jobs pod pods po -o json yaml wide"""
)
_CLI_VERBS = _set("describe logs log get list delete bash exec attach suspend")


def extract(
    text: str,
    links: tuple[Link, ...],
    projects: Collection[str] | None,
    clusters: Collection[str] | None = None,
) -> Found:
    """Read links, `kubectl get` tables, label sets, `kubectl`/`runai` lines and compact forms.

    `projects` are the project names the asker can read (None: not known), which tell a
    compact `nlp/train-bert` from any other `a/b` (unknown, a pair of names is only a
    guess, `Found.guessed_project`); `clusters` the known cluster names, kept
    when they stand inside a pasted alert title or command line.
    """
    found = Found()
    known = {c.casefold() for c in clusters or ()}
    for link in links:
        _link(link, found)
    text = read_tables(text, found)
    text = _ALERT_TITLE.sub(lambda m: _alert_title(m.group(0), found, known), text)
    text = _KUBECTL.sub(lambda m: _command(m.group(0), found, known, _kubectl), text)
    text = _RUNAI_CLI.sub(lambda m: _command(m.group(0), found, known, _runai), text)
    text = read_labels(text, found)
    text = _COMPACT.sub(lambda m: _compact(m, found, projects), text)
    text = _PAREN.sub(lambda m: _paren(m, found, projects, known), text)
    found.rest = text
    return found


def _link(link: Link, found: Found) -> None:
    try:
        parts = urlsplit(link.url)
        query = parse_qsl(parts.query)
    except ValueError:
        return
    for key, value in query:
        folded = key.lower()
        if folded in {"clusterid", "cluster_id"} and UUID_RE.match(value):
            found.cluster = found.cluster or value.lower()
        elif folded in {"workloadid", "workload_id"} and UUID_RE.match(value):
            found.workload_id = found.workload_id or value.lower()
    path = _WORKLOAD_PATH.search(parts.path)
    if path and found.workload_id is None:
        found.workload_id = path.group(1).lower()


def _alert_title(title: str, found: Found, clusters: set[str]) -> str:
    """`[FIRING:1] KubePodCrashLooping runai-nlp (… bert-ft-0-0 … <pod uid>)`: values only."""
    for word in re.split(r"[\s(),/]++", title):  # `(runai-nlp/bert-ft-0-0)`: namespace, pod
        if word.casefold() in clusters:
            found.cluster = found.cluster or word
        elif word.lower().startswith(NAMESPACE_PREFIX):
            found.set_namespace(word)
        elif _POD_SHAPE.search(word) and NAME_RE.match(word.lower()):
            found.add_pod(word)
        elif UUID_RE.match(word):
            found.ignored_uuids.add(word.lower())
    return " "


def _flag_values(words: list[str], flags: Collection[str]) -> list[str]:
    """The values of `-p x`, `--project x` and `--project=x` for any of `flags`."""
    values = []
    for i, word in enumerate(words):
        name, eq, value = word.partition("=")
        if name in flags:
            if eq:
                values.append(value)
            elif i + 1 < len(words):
                values.append(words[i + 1])
    return [v.strip("'\"") for v in values if v]


def _command(
    line: str, found: Found, clusters: set[str], read: Callable[[list[str], Found], None]
) -> str:
    """A command line read by `read`; the prose after it (and any known cluster) is kept."""
    words = line.split()
    end = next(
        (i for i, w in enumerate(words) if i and (w.lower() in _PROSE or w[0] in "(#[")),
        len(words),
    )
    if read is _runai and not _CLI_VERBS.intersection(w.lower() for w in words[:6]):
        return line  # `runai says it failed`: prose, not a command
    read(words[:end], found)
    kept = [w for w in words[:end] if w.casefold() in clusters]
    return "\n" + " ".join([*kept, *words[end:]]) + "\n"


def _kubectl(words: list[str], found: Found) -> None:
    for namespace in _flag_values(words, {"-n", "--namespace"})[:1]:
        found.set_namespace(namespace)
    for context in _flag_values(words, {"--context"})[:1]:
        found.context = context
    for i, word in enumerate(words):
        kind, slash, name = word.partition("/")
        if slash and kind.lower() in {"pod", "pods", "po"}:
            found.add_pod(name)
        elif word.lower() in {"pod", "pods", "po"} and i + 1 < len(words):
            if not words[i + 1].startswith("-"):
                found.add_pod(words[i + 1])
        elif word.lower() == "logs" and i + 1 < len(words) and _pod_word(words[i + 1]):
            found.add_pod(words[i + 1])


def _pod_word(word: str) -> bool:
    return "/" not in word and not word.startswith("-") and word.lower() not in _CLI_WORDS


def _runai(words: list[str], found: Found) -> None:
    for project in _flag_values(words, {"-p", "--project"})[:1]:
        found.project = found.project or project.lower()
    for uuid in _flag_values(words, {"--uuid", "-u"}):
        if UUID_RE.match(uuid):
            found.workload_id = found.workload_id or uuid.lower()
    skip = False
    for word in words[1:]:
        if skip:
            skip = False
            continue
        if word.startswith("-"):
            skip = "=" not in word and word not in {"-A", "--all", "--json"}
            continue
        if word.lower() not in _CLI_WORDS and not is_common(word):
            found.add_name(word)
            break


def _compact(match: re.Match[str], found: Found, projects: Collection[str] | None) -> str:
    left, right = match.group(1).lower(), match.group(2).lower()
    if not (_LETTER.search(left) and _LETTER.search(right)):
        return match.group(0)  # `1/4` workers, `0/1` ready, `11/04`: a ratio or a date
    if left.startswith(NAMESPACE_PREFIX):  # `runai-nlp/bert-ft-0-0`: namespace/pod
        found.set_namespace(left)
        found.add_pod(right)
        return " "
    if projects is not None and left in projects:
        found.project = found.project or left
        found.add_name(right)
        return " "
    shaped = projects is None and not is_common(left) and not is_common(right)
    if shaped and any(c.isdigit() or c == "-" for c in right):
        found.guessed_project = found.guessed_project or left
        found.add_name(right)
        return " "
    return match.group(0)


def _paren(
    match: re.Match[str], found: Found, projects: Collection[str] | None, clusters: set[str]
) -> str:
    """`train-bert (nlp)`: a workload and its project; `on prod-a (nlp)`: a cluster and one.

    The name before the brackets is a cluster, left for the parser, when it is a known one or
    stands where a cluster does (after `on` or `at`); only the project is read then.
    """
    name, inner = match.group(1).lower(), match.group(2).lower()
    if is_common(name) or not (_LETTER.search(name) and _LETTER.search(inner)):
        return match.group(0)  # `eval-7 (2)`: a count, not a project
    before = match.string[max(0, match.start() - _PLACE_CHARS * 2) : match.start()]
    if name in clusters or _PLACE.search(before):
        if projects is not None and inner in projects:
            found.project = found.project or inner
        elif projects is None and not is_common(inner):
            found.guessed_project = found.guessed_project or inner
        else:
            return match.group(0)
        return match.group(1)
    if projects is not None and inner in projects:
        found.project = found.project or inner
        found.add_name(name)
        return " "
    shaped = projects is None and not is_common(inner) and any(c in name for c in "-0123456789")
    if shaped:
        found.guessed_project = found.guessed_project or inner
        found.add_name(name)
        return " "
    return match.group(0)
