"""Linking: the words of a message against the clusters and projects that are known."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from functools import cached_property

from bot.conversation.parse import Query
from bot.conversation.understand.found import Found
from bot.conversation.understand.vocabulary import is_common, near_misses

__all__ = [
    "Known",
    "as_workload",
    "linked",
    "merged",
    "not_known",
    "unplaced",
    "whole_words",
]

_WORD = re.compile(r"[A-Za-z0-9][\w.-]*+")
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
_APOSTROPHE = re.compile(r"(?<![\w'\u2019-])[\w-]*+['\u2019][\w'\u2019-]*+")
_PUNCTUATION = ".,;:!?\"'()[]{}*_~<>`"
_POSSESSIVE = frozenset({"'s", "\u2019s"})
_NAME_SHAPED = re.compile(r"[0-9-]")
_MACHINE = frozenset({"node", "nodes", "host", "machine", "server"})
_LINKING = frozenset({"is", "was", "called", "named"})


@dataclass(frozen=True)
class Known:
    """What the names in a message are linked against; None: not known (not linked)."""

    clusters: tuple[str, ...] | None = None
    """Cluster names (and IDs) the control plane lists."""
    projects: tuple[str, ...] | None = None
    """Projects the asker can read on the thread's cluster."""

    @cached_property
    def folded(self) -> tuple[frozenset[str] | None, frozenset[str] | None]:
        """Both lists casefolded, for matching each word in constant time."""

        def fold(names: tuple[str, ...] | None) -> frozenset[str] | None:
            return None if names is None else frozenset(n.casefold() for n in names)

        return fold(self.clusters), fold(self.projects)

    def is_cluster(self, word: str) -> bool:
        """Whether `word` is exactly a known cluster's name or ID (in any case)."""
        clusters = self.folded[0]
        return clusters is not None and word.casefold() in clusters

    def is_project(self, word: str) -> bool:
        """Whether `word` is exactly one of the asker's projects (in any case)."""
        projects = self.folded[1]
        return projects is not None and word.casefold() in projects


def merged(query: Query, found: Found, known: Known) -> tuple[Query, list[str]]:
    """What was read explicitly wins over what the free text suggested (a guess never does).

    A version-shaped word said to have failed (`why did qwen-2.5 fail`) is the workload only
    when no other name or pod is (`python-3.11 crashed training-job-42`: the version is
    context). The rows of a pasted `runai` list are the workloads asked about only when no
    name is (a pasted pod does not count: the list says which workloads); their project is
    used when the workloads asked about agree on it.
    """
    cluster = found.cluster or query.cluster
    if cluster is None and found.context and known.is_cluster(found.context):
        cluster = found.context
    typed_project = found.project or query.project
    project = typed_project or found.guessed_project
    workload_id = found.workload_id or query.workload_id
    free = [n for n in (query.workload_name, *query.others) if n is not None]
    taken = {cluster, project, *(p for p in found.pods if p not in found.names)}
    names = _workloads([*found.names, *(n for n in free if not is_common(n))], taken, known)
    if not (names or found.pods):  # `why did qwen-2.5 fail`, with no other workload named
        names = _workloads(query.versions, taken, known)
    if not names:  # the rows of a pasted list, when no name is asked about
        names = _workloads(found.listed, taken, known)
    if workload_id:
        names = []
    rows = {found.listed[n] for n in names if n in found.listed}
    project = typed_project or (rows.pop() if len(rows) == 1 else None) or found.guessed_project
    merged = replace(
        query,
        cluster=cluster,
        project=project,
        workload_id=workload_id,
        workload_name=names[0] if names else None,
        others=(),
    )
    return merged, names[1:]


def _workloads(candidates: Iterable[str], taken: set[str | None], known: Known) -> list[str]:
    """The candidates that may be workloads: once each, none `taken` or a known name."""
    names: list[str] = []
    for name in candidates:
        if name in names or name in taken:
            continue
        if known.is_cluster(name) or known.is_project(name):
            continue  # a known cluster or project is not a workload (linked below)
        names.append(name)
    return names


def linked(query: Query, rest: str, known: Known, channels: tuple[str, ...] = ()) -> Query:
    """Everyday words dropped unless known; a word exactly a known cluster or project used.

    A value named on its own (`on prod-a`, `in ml-team`) wins over an `X or Y` and over
    other names (`the same job on prod-b is fine`). Without one, two known clusters (or
    projects) named, or a slot's `X or Y`, leave the slot empty with those as its options:
    which one is asked, never picked. Once the names are known, an `X or Y` keeps only
    known ones (`either in the dataloader or the model` names no project); one left is
    used. A name said not to be meant (`not nlp`) is never a value. A linked Slack channel
    (`channels`) names the cluster only when none was typed and it is exactly a known one.
    """
    unmeant = set(query.excluded)
    words = [w for w in _words(rest) if w not in unmeant]
    cluster, project, name = _typed(query, rest, words, known)
    if cluster and cluster.casefold() in unmeant:
        cluster = None
    if project and project in unmeant:
        project = None
    named = _distinct(w for w in words if known.is_cluster(w) and not _UUID.match(w))
    cluster, cluster_options = _choice(
        cluster, query.cluster_options, named, known.clusters, known.is_cluster
    )
    named = _distinct(w for w in words if w != name and known.is_project(w))
    project, project_options = _choice(
        project, query.project_options, named, known.projects, known.is_project
    )
    for folded in words:
        if cluster is None and not cluster_options and known.is_cluster(folded):
            cluster = folded
        elif project is None and not project_options and known.is_project(folded):
            project = folded if folded != name else None
    if cluster is None and not cluster_options:
        cluster = next((c.casefold() for c in channels if known.is_cluster(c)), None)
    return replace(
        query,
        cluster=cluster,
        project=project,
        workload_name=name,
        cluster_options=cluster_options,
        project_options=project_options,
    )


def as_workload(query: Query, known: Known) -> tuple[Query, tuple[str, ...]]:
    """`OOM on train-bert`, `NCCL timeout in train-bert-2`: the place read is the workload.

    For a message that names no workload otherwise: a cluster read only from `on X`/`at X`
    (or else a project only from `in X`) that is shaped like a workload's name and, once
    the clusters (or projects) are listed, is none of the known clusters and projects nor
    close to one (`prod-aa` is a near miss, asked about). The slot it left is asked. Also
    returns the name still to link while that list is not known (`Understood.unplaced`).
    """
    for slot, value, listed in (
        ("cluster", query.cluster, known.clusters),
        ("project", query.project, known.projects),
    ):
        if value is None or value not in query.placed:
            continue
        if _UUID.match(value.lower()) or not _NAME_SHAPED.search(value):
            return query, ()
        if listed is None:
            return query, (value.lower(),)
        if known.is_cluster(value) or known.is_project(value) or near_misses(value, listed):
            return query, ()
        if slot == "cluster":
            return replace(query, workload_name=value.lower(), cluster=None), ()
        return replace(query, workload_name=value.lower(), project=None), ()
    return query, ()


def not_known(said: Query, used: Query, known: Known) -> tuple[str, ...]:
    """Of an `X or Y`, the names not known when the other was used, as notes to the answer."""
    dropped: list[str] = []
    for slot, listed, options, value in (
        ("cluster", known.clusters, said.cluster_options, used.cluster),
        ("project", known.projects, said.project_options, used.project),
    ):
        names = {o.casefold() for o in options}
        if listed is None or value is None or value.casefold() not in names:
            continue
        dropped += [
            f"I see no {slot} named {o}, so I used {value}."
            for o in options
            if o.casefold() != value.casefold()
        ]
    return tuple(dropped)


def _choice(
    typed: str | None,
    options: tuple[str, ...],
    named: tuple[str, ...],
    listed: tuple[str, ...] | None,
    is_known: Callable[[str], bool],
) -> tuple[str | None, tuple[str, ...]]:
    """One slot's value and the options to ask between (`linked`).

    `typed`: the value named on its own; `options`: an `X or Y`; `named`: the known names
    of the message (a cluster's UUID is not counted: it may be the UUID of one beside it).
    """
    if listed is None:  # nothing to link against: a value named on its own wins
        return (typed, ()) if typed else (None, options)
    if typed and is_known(typed):
        return typed, ()
    options = _distinct(o.casefold() for o in options if is_known(o))
    if len(options) == 1:
        return options[0], ()
    if options:
        return None, options
    if typed:
        return typed, ()  # not known: asked about as a near miss
    return None, named if len(named) > 1 else ()


def _typed(
    query: Query, rest: str, words: list[str], known: Known
) -> tuple[str | None, str | None, str | None]:
    """The typed cluster, project and workload, each an everyday word only if known.

    A known project is never the cluster, nor a known cluster the project (`on nlp`, `in
    prod-a`: the preposition was the wrong one, the name is right).
    """
    cluster, project, name = query.cluster, query.project, query.workload_name
    pieces = _contractions(rest)  # `doesn't` is never `doesn` and `t`
    if cluster and (is_common(cluster) or cluster.lower() in pieces):
        cluster = cluster if known.is_cluster(cluster) else None
    if cluster and known.clusters is not None and not known.is_cluster(cluster):
        exact = next((w for w in words if known.is_cluster(w)), None)
        if exact is not None:  # `look at resnet-50 … on prod-a`: the known one, and the
            if name is None and _NAME_SHAPED.search(cluster):  # other was the workload
                name = cluster.lower()
            cluster = exact
        elif known.is_project(cluster):
            cluster = None  # `eval-7 on nlp`: the project, which `linked` reads as one
    if project and known.is_cluster(project) and not known.is_project(project):
        project = None  # `eval-7 failed in prod-a`: the cluster, which `linked` reads as one
    if project and (is_common(project) or project in pieces):
        project = project if known.is_project(project) else None
    if name and (is_common(name) or name in pieces):
        name = None
    return cluster, project, name


def _distinct(words: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(words))


def unplaced(
    rest: str, query: Query, pods: tuple[str, ...], channels: tuple[str, ...] = ()
) -> tuple[str, ...]:
    """Words no slot took that could still be a cluster or a project (none in a follow-up).

    The names of linked channels count, as clusters to look up; the parts of `it's` and a
    name said not to be meant (`not nlp`) do not.
    """
    if query.follow_up is not None:
        return ()
    placed = {query.cluster, query.project, query.workload_name, query.workload_id, *pods}
    placed |= {*query.excluded, *_contractions(rest)}
    words = [w.lower().rstrip(".-") for w in _WORD.findall(rest)]
    machine = set()  # `node dgx-07`, `the node is dgx-07`: a machine, not a cluster
    for i, word in enumerate(words):
        if word in _MACHINE:
            linked = i + 1 < len(words) and words[i + 1] in _LINKING
            machine.add(i + 2 if linked else i + 1)
    kept = [
        w
        for i, w in enumerate(words)
        if w not in placed and i not in machine and not is_common(w) and not w.isdigit()
    ]
    kept += [c.casefold() for c in channels if c.casefold() not in placed]
    return tuple(dict.fromkeys(kept))


def whole_words(query: Query, rest: str) -> Query:
    """Values that are whole words of the message (`in` inside `built-in` reads no `built-`)."""
    words = {w.strip(_PUNCTUATION).lower() for w in rest.split()}
    owners = (_possessor(w) for w in rest.split() if "'" in w or "\u2019" in w)
    words |= {p for p in owners if p}  # `train-bert's pods`

    def whole(value: str | None) -> str | None:
        return value if value is None or value.lower() in words else None

    return replace(
        query,
        cluster=whole(query.cluster),
        project=whole(query.project),
        workload_name=whole(query.workload_name),
        others=tuple(o for o in query.others if whole(o)),
    )


def _contractions(text: str) -> set[str]:
    """The parts of every word with an apostrophe (`doesn't` → `doesn`, `t`).

    Not what owns something (`train-bert's pods`): that is a whole word, a name or not.
    """
    parts: set[str] = set()
    for word in _APOSTROPHE.findall(text):
        split = [p.lower() for p in re.split(r"['\u2019]", word) if p]
        parts.update(split[1:] if word[-2:].lower() in _POSSESSIVE else split)
    return parts


def _possessor(word: str) -> str | None:
    """`train-bert` of `train-bert's` (with either apostrophe); None: no `'s` ends the word."""
    head, _, tail = word.lower().rstrip(_PUNCTUATION).rpartition("s")
    if tail or not head.endswith(("'", "\u2019")):
        return None
    return head[:-1] or None


def _words(text: str) -> list[str]:
    return [w.lower().rstrip(".-") for w in _WORD.findall(text)]
