"""What a reply asks of the thread, not new slots: a picked button, evidence, a rerun, a symptom."""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass
from enum import StrEnum

from bot.conversation.words import ORDINALS, clause_before, led, requested

__all__ = ["FollowUp", "Intent", "alongside", "intent", "symptom_asked"]

_PICK_RE = re.compile(r"^(?:#|no\.?\s*|number\s+|option\s+|pick\s+)?(\d{1,3})[.)]?$", re.IGNORECASE)
_ORDINAL_RE = re.compile(rf"^(?:the\s+)?({'|'.join(ORDINALS)})(?:\s+(?:one|option))?$")
_SHOW_RE = re.compile(r"\b(?:show|see|post|give|send|print|paste|dump|get|any)\b", re.IGNORECASE)
_SHOWN_RE = re.compile(r"\b(?:logs?|evidence|details|lines|more)\b", re.IGNORECASE)
_EVIDENCE_RE = re.compile(
    r"\b(?:all|full|more|the)\s++(?:the\s++)?(?:logs?|evidence|details)\b"
    r"|^(?:logs?|evidence|details|more|tell me more|more please|full report)$",
    re.IGNORECASE,
)
_RERUN_RE = re.compile(r"\b(?:re-?run|retry|re-?check|re-?diagnose|refresh|again)\b", re.IGNORECASE)
_PUNCTUATION = ".,;:!?\"'()[]*_~<>"


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


#: What happened to the workload, just before `again`: `it failed again`, `oom again?`.
_HAPPENED = _set(
    """fail fails failing crash crashes crashing die dies dying oom ooms oomkilled broke
    broken break breaks breaking down stuck pending restart restarts restarting error errors
    erroring hang hangs hanging hung evicted preempted killed ran went happen happens
    happening"""
)
_LAST_WORDS = 4  # how many words before `again` are read: a bounded amount of work
#: A sentence that opens with one of these asks something: `why is it crashlooping`.
_QUESTION = _set("why what how is are was were did does do could can should would any")
#: All a reply that is only a symptom may say around it: `crash loop`, `it's still stuck`.
#: Never `here` (`still crashlooping here`: on the speaker's side), `too`, `mine`, `same`.
_BARE = _set(
    """ok okay so then and maybe the a an it it's its is are has been please pls plz still
    again now in yes yeah yep yup no nope hmm hm ugh looks look like seems seem i think guess
    pod pods failing with get getting ready never issue problem"""
)
#: A symptom's other words and the states pods show (`stuck in init`, `image pull error`).
_STATES = _set(
    """crashloopbackoff imagepullbackoff errimagepull createcontainerconfigerror failedmount
    crashloop crashlooping crash loop looping image pull pulling error errors init
    initializing stuck pending queued waiting backoff oom oomkilled mount pvc restart
    restarting restarts containercreating"""
)
_SHORTCODE = re.compile(r"^:[\w+-]++:$")  # `:eyes:`; `:(` strips to nothing
_POD_STATE = re.compile(r"^init:\d++/\d++$")  # `Init:0/1`
_SENTENCE_END = re.compile(r"[.!?;\n]")
_AROUND = 60  # how far around a symptom its sentence is read: bounded work per message
_ASKED_WORDS = 3  # how long a question after the symptom's sentence may be (`any ideas?`)
_PAST = re.compile(r"^[a-z]{2,}ed$")  # `fixed`, `restarted`; never `ed` or `red` alone
#: Words that say it happens to the speaker too: `same here`, `me too`, `mine`, `as well`
#: (`too`, `either` and `here` where a clause ends: `too slow` and `here's` say nothing so).
_ALONGSIDE = re.compile(
    r"\b(?:same|mine|ours|as\s++well|(?:for|on)\s++(?:me|us)|(?:my|our)\s++(?:side|end))\b"
    r"|\b(?:too|either|here)(?=\s*+(?:[.,;:!?)\u2013\u2014-]|$))|(?<!\S)\+1(?!\S)",
    re.IGNORECASE,
)


def _happened(words: list[str]) -> bool:
    """`it failed again`, `it's crashing again`: a past tense or the workload's state."""
    return any(w in _HAPPENED or _PAST.match(w) for w in words)


class FollowUp(StrEnum):
    """What a reply after an answer asks of that answer (a new lookback is `lookback`)."""

    EVIDENCE = "evidence"  # "show logs", "more", "all evidence"
    RERUN = "rerun"  # "re-run", "check again"


@dataclass(frozen=True)
class Intent:
    """A picked button (from 1) or a follow-up, and the text left for the slots."""

    rest: str
    pick: int | None = None
    follow_up: FollowUp | None = None


def intent(text: str) -> Intent:
    """Follow-ups and a picked number, which are about the thread rather than new slots.

    `2`, `the second one` pick a button; `show logs`, `more`, `all evidence` ask for the
    last answer's evidence; `check again`, `re-run?` for the diagnosis again. Linear in the
    text (`bot.conversation.parse_bounds`).
    """
    words = [w for w in (raw.strip(_PUNCTUATION) for raw in text.lower().split()) if w]
    pick = _PICK_RE.match(text.strip())
    if pick:
        return Intent("", pick=int(pick.group(1)))
    ordinal = _ORDINAL_RE.match(" ".join(words))
    if ordinal:
        return Intent("", pick=ORDINALS[ordinal.group(1)])
    evidence = _evidence_spans(text)
    if evidence:
        return Intent(_cut(text, evidence), follow_up=FollowUp.EVIDENCE)
    if _rerun_asked(text):
        return Intent(_RERUN_RE.sub(" ", text), follow_up=FollowUp.RERUN)
    return Intent(text)


def _rerun_asked(text: str) -> bool:
    """`check again`, `can you look at it again`, `I bumped the limit so check again pls`.

    Never what the asker will do (`I'll rerun it with more memory`, `will try again after
    lunch`), nor what happened (`it failed again`, `I restarted it again`): the clause
    before it (`so`, ` - `, `—` end one too) is read, its last few words for what happened.
    """
    for match in _RERUN_RE.finditer(text):
        before = clause_before(text, match.start())
        if requested(before) and not _happened(before[-_LAST_WORDS:]):
            return True
    return False


def alongside(text: str) -> bool:
    """Whether `text` says it happens to the speaker too (`no, same here, still crashlooping`).

    Someone agreeing, or comparing notes: a symptom said so asks the bot nothing.
    """
    return _ALONGSIDE.search(text) is not None


def symptom_asked(text: str, start: int, end: int) -> bool:
    """Whether the symptom at `text[start:end]`, in a plain reply in a thread, asks the bot.

    A question (`why is it crashlooping?`, `could it be the mount`), a request (`check the
    mount`, `what about the image pull`) or a reply that is only the symptom (`crash loop`)
    asks; talk about it does not (`still crashlooping here`, `same, it keeps crashing`,
    `mine is pending as well`), nor what the asker will do (`I'll look at the pvc`).
    """
    if not requested(clause_before(text, start)):
        return False
    if _questioned(text, end) or led(text, start):
        return True
    opening = _SENTENCE_END.split(text[max(0, start - _AROUND) : start])[-1].split()
    if opening and opening[0].strip(_PUNCTUATION).lower() in _QUESTION:
        return True
    return _only_symptom(text, start, end)


def _questioned(text: str, end: int) -> bool:
    """Whether the symptom's sentence ends in `?`, or a short question follows it (`thoughts?`).

    `stuck pending. thoughts?`, `crashlooping - any idea?`: a question of a few words
    right after asks about what was said, as `why?` would.
    """
    ahead = _SENTENCE_END.search(text, end, end + _AROUND)
    if ahead is None or ahead.group(0) == "?":
        return ahead is not None
    after = _SENTENCE_END.search(text, ahead.end(), ahead.end() + _AROUND)
    said = text[ahead.end() : after.start()].split() if after is not None else ()
    return after is not None and after.group(0) == "?" and 0 < len(said) <= _ASKED_WORDS


def _symbols(bare: str) -> bool:
    """A kaomoji, emoji or symbols (a shrug, `😕`): fewer letters than other marks."""
    return sum(ch.isalnum() for ch in bare) * 2 < len(bare)


def _only_symptom(text: str, start: int, end: int) -> bool:
    """Whether `text` says nothing but the symptom at `text[start:end]` (`CrashLoopBackOff!`).

    The word the symptom stands in goes whole (`crashlooping`, `Init:0/1`); around it only
    padding (`it's`, `still`, `again`), other symptom words (`stuck in init`, `image
    pull error`), punctuation and emoji (`stuck :(`). Who it happens to (`mine is pending as
    well`) or a comparison (`same here, still crashlooping`) makes it talk.
    """
    for word in re.finditer(r"\S++", text.replace("\u2019", "'")):
        if word.end() > start and word.start() < end:
            continue  # the symptom's own word
        said = word.group(0).lower()
        bare = said.strip(_PUNCTUATION)
        if bare and not (
            bare in _BARE
            or bare in _STATES
            or _POD_STATE.match(bare)
            or _SHORTCODE.match(said)
            or _symbols(bare)
        ):
            return False
    return True


def _evidence_spans(text: str) -> list[tuple[int, int]]:
    """Where `text` asks for the evidence (`show me the logs`, `all evidence`), left to right.

    The spans the one regex `show.*logs|all logs|^more$` found, in linear time (`text` has
    no line breaks). `show … logs` runs from the first verb to the last thing shown after
    it; tried from every verb, the regex took quadratic time on `show show show …`. The
    other parts contain no verb, so they match only before it.
    """
    verb = _SHOW_RE.search(text)
    shown = deque(_SHOWN_RE.finditer(text, verb.end()) if verb else (), maxlen=1)
    end = verb.start() if verb and shown else len(text)
    spans = [m.span() for m in _EVIDENCE_RE.finditer(text) if m.start() < end]
    return [*spans, (end, shown[0].end())] if shown else spans


def _cut(text: str, spans: list[tuple[int, int]]) -> str:
    """`text` with each of `spans` (in order, not overlapping) replaced by a space."""
    kept, at = [], 0
    for start, end in spans:
        kept.append(text[at:start])
        at = end
    return " ".join([*kept, text[at:]])
