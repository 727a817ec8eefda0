"""One message, any platform: normalise → extract → parse → link, into what the bot understood.

The same steps for Slack, Teams and the console; only the markup differs (`Markup`):
1. **normalise** the platform's markup to plain words and links (`markup`);
2. **extract** what the message carries explicitly: Run:ai links, label sets, `kubectl` and
   `runai` lines, compact forms (`identifiers`), and time words (`when`);
3. **parse** the words that are left (`bot.conversation.parse`: the bot's own phrasing, key=value);
4. **link** the values against what is known (`linking.Known`): an everyday word becomes a cluster,
   project or workload only if one is called exactly that; a value that is not known but
   close to one is a near miss, to ask about, never to use.
Pure and linear in the message (`bot.conversation.parse_bounds`): the engine supplies what is known.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime

from bot.conversation.intent import alongside
from bot.conversation.names import node_shaped
from bot.conversation.parse import Expecting, FollowUp, Query, parse, symptom_said
from bot.conversation.parse_bounds import bounded
from bot.conversation.understand.dates import dated
from bot.conversation.understand.identifiers import extract
from bot.conversation.understand.linking import (
    Known,
    as_workload,
    linked,
    merged,
    not_known,
    unplaced,
    whole_words,
)
from bot.conversation.understand.markup import Markup, normalise
from bot.conversation.understand.pasted import further, uncoded
from bot.conversation.understand.vocabulary import CHATTER_PHRASE, is_common
from bot.conversation.understand.when import stuck, weekday_lookback
from bot.conversation.words import THANKS

__all__ = ["BOT_NAMES", "Known", "Understood", "understand"]

#: How people write the bot's name when they type it rather than mention it.
BOT_NAMES = ("runai-why", "runaiwhy", "runai_why")

_CORRECTION = re.compile(
    r"^\W*+(?:actually|sorry|oops|nope|no|correction|wait|my\s++bad|err?|ah)\b"
    r"|\bwrong\s++(?:cluster|project|job|workload|one|name|run)\b"
    r"|\bi\s++mean[t]?\b|\bshould\s++(?:be|have\s++been)\b|\bnot\s++that\s++one\b",
    re.IGNORECASE,
)
#: `wrong cluster, it's prod-aa`: the slot a correction names.
_WRONG = re.compile(r"\bwrong\s++(cluster|project|job|workload)\b", re.IGNORECASE)
_FRAGMENT = re.compile(
    r"\bthe\s++([a-z0-9][a-z0-9.-]{0,30}+)\s++(?:one|version|run|job|variant)\b", re.IGNORECASE
)
_WORD = re.compile(r"[A-Za-z0-9][\w.-]*+")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_LETTER = re.compile(r"[^\W_]")
_SHAPED = re.compile(r"[0-9-]")  # a workload's name has a digit or a `-`; `finishing` none


@dataclass(frozen=True)
class Understood:
    """The slots of one message (`query`) and what the bot's own phrasing cannot say."""

    query: Query
    pods: tuple[str, ...] = ()
    """Pods named without their workload: resolved through the workload's pods, or asked."""
    others: tuple[str, ...] = ()
    """Further workloads named in the same message, after `query.workload_name`."""
    namespace: str | None = None
    """A namespace that does not read as `runai-<project>`: which project is asked."""
    correction: bool = False
    """"actually it's on prod-c", "wrong job, I mean …", "not X, Y": it corrects the last
    request."""
    fragment: str | None = None
    """"the v2 one": part of a workload name, resolved among the project's workloads."""
    unread_lookback: str | None = None
    """A time the asker gave that cannot be read ("since the deploy"), as typed."""
    talk: bool = False
    """Talk that is plainly not for the bot (`brb`, `checking now`, a question to a
    teammate): never answered, not even with the question again."""
    thanks: bool = False
    """A thank-you (`@runai-why thanks`): talk, never a reply to answer."""
    explicit: bool = False
    """Something was pasted or linked (a label set, a command line, a Run:ai link)."""
    unplaced: tuple[str, ...] = ()
    """Name-like words no slot took: worth linking against the known clusters and projects."""
    not_known: tuple[str, ...] = ()
    """Of an `X or Y`, the names not known when the other was used: a note each."""

    @property
    def names_something(self) -> bool:
        """A workload, pod, cluster or project, by name, ID or part of a name."""
        return self.query.names_something or bool(self.pods or self.fragment or self.others)


def understand(
    text: str,
    *,
    markup: Markup = Markup.PLAIN,
    expecting: Expecting | None = None,
    known: Known | None = None,
    bot_user_id: str | None = None,
    today: date | None = None,
    directed: bool = True,
    has_workload: bool = False,
) -> Understood:
    """What `text` (written in `markup`) asks, its values linked against `known`.

    `directed`: a command or a mention (False: a plain reply in a thread, where a message
    to someone else is never for the bot). `today` dates weekday words ("since Saturday").
    `has_workload`: the thread is already about a workload, so in a plain reply a version
    said to have failed is never a new one (`torch-2.3 keeps crashing, re-run?`).
    """
    known = known or Known()
    capped = bounded(text)
    plain = normalise(capped.text, markup, bot_user_id=bot_user_id, bot_names=BOT_NAMES)
    if plain.addressed_other and not directed:
        return Understood(Query(chatter=True, ignored_chars=capped.ignored), talk=True)
    found = extract(plain.text, plain.links, known.folded[1], known.folded[0])
    rest, pasted = uncoded(_without(found.rest, found.ignored_uuids))
    today = today or datetime.now(UTC).date()
    day = dated(rest, today, asked=not directed)  # `on 2025-11-04` is never a cluster
    asked = not directed and expecting is None
    rest, symptom = stuck(day.rest, asked=asked)
    stuck_said = stuck(day.rest)[1] if asked else symptom
    rest, lookback, unread = weekday_lookback(rest, today, asked=not directed)
    fragment = _FRAGMENT.search(rest)
    if fragment is not None and is_common(fragment.group(1)):
        fragment = None  # `the first one`, `the same one`: never part of a name
    wrong = _WRONG.search(plain.text)  # before `cluster: prod-b` is read out of it
    correction = bool(_CORRECTION.search(rest) or wrong)
    if fragment is not None and correction:
        rest = rest[: fragment.start()] + " " + rest[fragment.end() :]
    query = whole_words(parse(rest, expecting=expecting, reply=not directed), rest)
    query = replace(query, ignored_chars=capped.ignored)
    if query.help or query.pick is not None:
        return Understood(query)
    words = _WORD.findall(plain.text)
    talk = bool(CHATTER_PHRASE.match(" ".join(words)))
    emoji = (plain.emoji or bool(plain.text.strip())) and not _LETTER.search(plain.text)
    talk = talk or (emoji and not found.anything and not plain.links)  # `:eyes:`, 👀
    corrected_by_part = fragment is not None and correction
    if (query.chatter and not found.anything and not corrected_by_part) or talk:
        thanks = bool(words) and words[0].lower() in THANKS
        chatter = Query(chatter=True, ignored_chars=capped.ignored)
        return Understood(chatter, talk=talk, thanks=thanks)
    named = bool(found.anything or query.workload_name or query.workload_id)
    if (
        asked
        and query.symptom is None
        and (named or _correcting(rest, correction=correction) or _slots(query))
    ):
        # a request, not talk: `eval-7: CrashLoopBackOff`, `wrong job, it's eval-7 that's stuck`
        symptom = symptom or stuck_said or symptom_said(rest)
    rerun = query.follow_up is FollowUp.RERUN and not named
    query = replace(
        query,
        chatter=False,
        # `fixed the pvc — check again?`: the same question again, not one about mounts
        symptom=None if rerun else query.symptom or symptom,
        lookback=query.lookback or lookback or day.lookback,
        problems=(*query.problems, day.problem) if day.problem else query.problems,
        # `train-bert failed again`: a request about a workload, not "check again"
        follow_up=query.follow_up if rerun or query.follow_up is not FollowUp.RERUN else None,
    )
    if has_workload and not directed:
        query = replace(query, versions=())
    query, others = merged(query, found, known)
    said, query = query, linked(query, rest, known, plain.channels)
    if query.workload_id:
        others = []
    named = bool(others or found.pods or wrong or (correction and (has_workload or fragment)))
    query, doubtful = _placed(
        query, known, named=named, expecting=expecting, has_workload=has_workload
    )
    if wrong is not None:
        spare = unplaced(rest, query, (), plain.channels)
        query, others = _retargeted(query, others, wrong.group(1).lower(), spare)
    others = further(others, query, pasted | plain.quoted)
    pods = tuple(found.pods) if not (query.workload_name or query.workload_id) else ()
    names_something = query.names_something or bool(pods or fragment)
    return Understood(
        query,
        pods=pods,
        others=tuple(others),
        namespace=found.namespace if query.project is None else None,
        correction=(correction or _unmeant(query.excluded, known)) and names_something,
        fragment=fragment.group(1).lower() if fragment is not None and correction else None,
        unread_lookback=unread if query.lookback is None else None,
        explicit=found.anything,
        unplaced=tuple(
            dict.fromkeys(
                (
                    *unplaced(rest, query, pods, plain.channels),
                    *doubtful,
                    *_maybe_cluster(query, known),
                )
            )
        ),
        not_known=not_known(said, query, known),
    )


def _placed(
    query: Query,
    known: Known,
    *,
    named: bool,
    expecting: Expecting | None,
    has_workload: bool,
) -> tuple[Query, tuple[str, ...]]:
    """`why does nccl-2.18 hang on train-bert`: where it happens is the workload (`as_workload`).

    Only when nothing else names the workload (`named`: other names, pods, or a correction
    of the thread's request) and the bot did not ask for a cluster or a project. In a thread
    about a workload, a machine it is said to be on is neither (`_off_node`).
    """
    if named or query.workload_name or query.workload_id:
        return query, ()
    if has_workload and expecting is not Expecting.CLUSTER:
        query = _off_node(query, known)
    if expecting in {Expecting.CLUSTER, Expecting.PROJECT}:
        return query, ()
    return as_workload(query, known)


def _off_node(query: Query, known: Known) -> Query:
    """`did anything change on dgx-a100-07?` in a thread about a workload: a machine, no slot.

    A machine-shaped name read only from `on X` (`names.node_shaped`) that is no known
    cluster is neither the cluster nor the next workload. Before the clusters are listed it
    stays, so the engine lists them and reads the message again (`Understood.unplaced`).
    """
    cluster = query.cluster
    if cluster is None or known.clusters is None:
        return query
    if cluster not in query.placed or not node_shaped(cluster) or known.is_cluster(cluster):
        return query
    return replace(query, cluster=None)


def _maybe_cluster(query: Query, known: Known) -> tuple[str, ...]:
    """`training-job-42 failed in prod-a`: a project read only from `in X`, no cluster named.

    It may be the cluster: read again once the clusters are listed, where a known cluster is
    never the project (`linking`). Nothing is named to anyone from the list.
    """
    project = query.project
    if known.clusters is not None or query.cluster or query.cluster_options:
        return ()
    if not project or project not in query.placed:
        return ()
    return (project.lower(),)


def _correcting(rest: str, *, correction: bool) -> bool:
    """A correction (`no, it's crashlooping`), not someone agreeing (`no, same here, …`)."""
    return correction and not alongside(rest)


def _slots(query: Query) -> bool:
    """Whether the words name a cluster, a project or further workloads (`it's on prod-b`)."""
    return bool(query.cluster or query.project or query.others or query.excluded)


def _unmeant(excluded: tuple[str, ...], known: Known) -> bool:
    """Whether `not X` names something (`not nlp`, `not train-bert`), not `is not finishing`."""
    return any(known.is_cluster(n) or known.is_project(n) or _SHAPED.search(n) for n in excluded)


def _retargeted(
    query: Query, others: list[str], slot: str, spare: tuple[str, ...]
) -> tuple[Query, list[str]]:
    """`wrong cluster, it's prod-aa`: the one name left over goes into the slot named.

    Only an empty slot, and only when exactly one name is left (a workload name read from
    the free text, or a word no slot took); an unknown name is then asked about as any is.
    """
    if slot in {"job", "workload"}:
        if query.workload_name or query.workload_id or len(spare) != 1:
            return query, others
        return replace(query, workload_name=spare[0]), others
    left = tuple(dict.fromkeys(n for n in (query.workload_name, *others, *spare) if n))
    if len(left) != 1:
        return query, others
    name, was_workload = left[0], left[0] == query.workload_name
    if slot == "cluster" and query.cluster is None and not query.cluster_options:
        query = replace(query, cluster=name)
    elif slot == "project" and query.project is None and not query.project_options:
        query = replace(query, project=name)
    else:
        return query, others
    if was_workload:
        query = replace(query, workload_name=None)
    return query, [n for n in others if n != name]


def _without(text: str, uuids: set[str]) -> str:
    """`text` without the pod UIDs a paste carried (they are never a workload's ID)."""
    if not uuids:
        return text
    return _UUID.sub(lambda m: " " if m.group(0).lower() in uuids else m.group(0), text)
