"""The small words of incident chat: chatter, filler, words that are never names, time phrases.

The parser reads names only where a word could be one; these tables say which words cannot
(`from`, `hmm`, `init`), which are just padding around a value (`it's prod-a please`), and
which phrases mean a lookback (`since yesterday`, `over the past week`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from diagnosis import Symptom

__all__ = [
    "CHATTER",
    "FILLER",
    "NOT_NAMES",
    "ORDINALS",
    "PAST",
    "SYMPTOMS",
    "THANKS",
    "asked_for",
    "clause_before",
    "find_lookback",
    "led",
    "requested",
    "without_times",
]


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


#: A message that opens with one of these is a thank-you, not a request.
THANKS = _set("thanks thank thx ty tysm tyvm cheers kudos merci danke")

#: Words that carry no request on their own: a message made only of them gets no answer.
CHATTER = THANKS | _set(
    """you ok okay k kk cool nice great awesome perfect got it gotcha lol lmao haha ugh hmm hm
    hmmm mm wow yikes damn oops sure yes yeah yep yup no nope nah right ah oh ahh np sounds
    good makes sense interesting weird huh alright fine ack noted wait what why hi hello hey
    sorry +1 omg wtf sigh meh argh ooh i don't dont know idk dunno idea that helps helped
    will do looking on me too same here again so well fun wonderful brilliant excellent
    done fixed resolved works working back"""
)

#: Padding around a value in a reply: `it's prod-a`, `prod-a please`, `I think it's nlp`.
FILLER = _set(
    """it's its it is that's thats the a an one please pls plz i i'm think guess probably
    prob maybe on in at cluster project workload job called named use try should be was
    it'll we're were um uh er just like say says said definitely pretty sure this"""
)

_SMALL = _set(
    """why did does do is are was my our the a an workload job run runs fail failed failing fails
    crash crashed crashing what who whom whose which when where how killed happened to with on
    in of at for cluster project please die died stop stopped help me tell explain diagnose
    check look it this that these those keeps keep stuck pod pods last past hours days
    training why's whats what's can you from about and or but by up down out over under after
    before since then there here still again just all any some every more less most very
    really also too so not be been being has have had will would could should may might must
    get got gets going go went we us they them their he she him her his i'm i've we're let's
    lets see show logs log evidence details report status error errors issue problem thing
    something anything nothing node nodes gpu gpus container containers namespace k8s
    kubernetes runai run:ai broke broken dead evicted preempted pending running hung hang
    hanging happening happen going on one ones other another same new old latest previous
    first second third now ago earlier recently yesterday today tonight morning afternoon
    evening night week weeks month months day hour minutes minute time times while waiting
    trying seeing getting"""
)

_SYMPTOM_WORDS = _set(
    """init initialization initializing pull pulling image images crashloop crashloopbackoff
    imagepullbackoff errimagepull loop looping restart restarting restarts mount mounting
    mounts volume volumes pvc startup start starting oom oomkilled memory crashlooping
    crashlooped crashloops oomed backoff"""
)

#: What pods and workloads show as their status: a state (`stuck at ContainerCreating`),
#: never where or what (`at`/`in` before it reads no cluster or project).
_STATES = _set(
    """containercreating podinitializing terminating terminated completed succeeded unknown
    creating deleting suspended resuming degraded timedout createcontainerconfigerror
    createcontainererror runcontainererror containerstatusunknown invalidimagename
    errimageneverpull imageinspecterror registryunavailable failedscheduling unschedulable
    failedmount failedattachvolume notready schedulinggated"""
)

_HYPHENATED = _set(
    """crash-loop crash-looping crash-looped image-pull re-run re-check re-diagnose out-of-memory
    oom-killed follow-up set-up check-in e-mail real-time right-now read-only built-in up-to-date
    non-zero non-ready not-ready non-running init-container init-containers cross-post
    cross-posted cross-posting x-post
    x-posted x-posting"""
)

#: Never a workload, project or cluster name, wherever it stands.
NOT_NAMES = CHATTER | FILLER | _SMALL | _SYMPTOM_WORDS | _STATES | _HYPHENATED

#: "the second one" picks the second button.
ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "1st": 1, "2nd": 2}
ORDINALS |= {"3rd": 3, "4th": 4, "5th": 5}

_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_NUMBERS |= {"seven": 7, "eight": 8, "nine": 9, "ten": 10, "couple": 2, "few": 3}

_LEAD = r"(?:(?:over|in|for|within|during|since|from)\s+)?(?:the\s+)?"
_PHRASES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), code)
    for pattern, code in (
        (r"\b(?:since|from)\s+yesterday\b|\byesterday\b|\blast night\b|\bovernight\b", "2d"),
        (r"\b(?:since|from)?\s*this (?:morning|afternoon|evening)\b|\btoday\b|\btonight\b", "24h"),
        (rf"\b{_LEAD}(?:last|past)\s+hour\b", "1h"),
        (rf"\b{_LEAD}(?:last|past)\s+day\b", "24h"),
        (rf"\b{_LEAD}(?:last|past)\s+(?:two|couple(?:\s+of)?)\s+weeks\b|\bfortnight\b", "14d"),
        (rf"\b{_LEAD}(?:last|past)\s+week\b|\bthis week\b", "7d"),
        (rf"\b{_LEAD}(?:last|past)\s+month\b|\bthis month\b", "30d"),
    )
)


_UNIT = r"(m|mins?|minutes?|h|hrs?|hours?|d|days?|w|wks?|weeks?)"
_WORD_AMOUNT = "|".join([*_NUMBERS, r"couple(?:\s+of)?"])
_AMOUNT_RE = re.compile(
    r"(?<![\w.-])(?:(?:over|in|for|within|during)\s+)?(?:the\s+)?(?:(?:last|past|lookback)\s+)?"
    rf"(?:(\d+)\s*|({_WORD_AMOUNT})\s+){_UNIT}\b(?![-.]\w)",
    re.IGNORECASE,
)


def _number(word: str) -> int:
    word = " ".join(word.lower().split()).removesuffix(" of")
    return int(word) if word.isdigit() else _NUMBERS[word]


def _amount(match: re.Match[str]) -> str:
    unit = match.group(3).lower()
    code = "m" if unit.startswith("m") else unit[0]
    return f"{_number(match.group(1) or match.group(2))}{code}"


def _times(text: str) -> Iterator[tuple[re.Match[str], str]]:
    """Every time phrase of `text` with its lookback: each phrase in turn, then amounts."""
    for pattern, code in _PHRASES:
        for match in pattern.finditer(text):
            yield match, code
    for match in _AMOUNT_RE.finditer(text):
        yield match, _amount(match)


def find_lookback(text: str, *, asked: bool = False) -> tuple[str, str | None]:
    """Find a lookback (`last 7 days` is 7d, `since yesterday` 2d); returns the rest and it.

    `asked`: only a time asked for counts (`asked_for`; a plain reply in a thread), and
    every time phrase is cut from the rest, so `5m` in `it died after 5m` is never a name.
    """
    if not asked:
        match, code = next(_times(text), (None, None))
        if match is None:
            return text, None
        return text[: match.start()] + " " + text[match.end() :], code
    times = list(_times(text))
    loose = _loose(text)
    code = next((c for m, c in times if asked_for(text, m.start(), m.end(), loose=loose)), None)
    return _without(text, [m.span() for m, _ in times]), code


def without_times(text: str) -> str:
    """`text` with every time phrase cut (pasted output: `AGE 5m` is no lookback)."""
    return _without(text, [m.span() for m, _ in _times(text)])


def _without(text: str, spans: list[tuple[int, int]]) -> str:
    kept, at = [], 0
    for start, end in sorted(spans):
        kept.append(text[at:start])
        at = max(at, end)
    return " ".join([*kept, text[at:]]) if spans else text


#: What a reply that asks only for a time may say around it: `ok, what about 7d then?`
_ASKING = _set(
    """ok okay k kk so then and also what how about please pls plz thanks thank thx ty cool
    great nice hmm hm um uh er maybe instead too again just the a an for me us you can could
    would it's its that's on in at cluster project workload job use try check look show yes
    yeah yep sure no nope hi hey well since"""
)
#: Words just before a time that ask for it: `what about`, `check`, `try`, `re-run with`.
_LEADS = _set(
    """about check look at try show use rerun re-run recheck re-check retry again back
    diagnose lookback redo extend widen expand further farther"""
)
#: A reply that opens so corrects the last request: a time the failure is said of counts
#: (`actually it failed on Nov 18`, `no, it was 2025-11-18`), no other (`wait 5 min`,
#: `sorry, I was in a meeting for 2 hours`, `no, it's been stuck for 45 min`).
_CORRECTING = re.compile(r"^\W*+(?:actually|sorry|no|nope|oops|correction|wait)\b", re.IGNORECASE)
#: The words just before a time in a correction that say the failure is bounded by it.
_FAILED_AT = re.compile(
    r"^(?:fail|failed|crashed|died|broke|oomed|oomkilled|errored|evicted|preempted|was)$"
)
#: What may stand between `failed` (or `I meant`) and the time: `failed on`, `meant since`.
_BETWEEN = _set("on at since from around about the last past")
_MEANT = _set("meant mean")
_WELL = _set("fine ok okay worked working succeeded passed good healthy")
_LEAD_WORDS = 3  # how many words before a time may ask for it
#: A time that says it is the lookback: `a 3 day lookback`, `a 48h window`.
_NAMED_AS = re.compile(r"\s*+(?:lookback|window)\b", re.IGNORECASE)
#: Where the words that lead a time stop: a sentence, not a comma (`go back further, like 3d`).
_SENTENCE = re.compile(r"[.;!?]")
#: What the asker will do themselves (`I'll rerun it`, `will try again after lunch`).
_SELF = _set("i'll ill we'll will gonna going let lemme let's lets wanna gotta shall")
_WITHIN = re.compile(
    r"(?:over|in|for|within|during)\s+(?:the\s+)?(?:last|past)\b|lookback\b", re.IGNORECASE
)
_CLAUSE = re.compile(r"[.,;!?\u2013\u2014]|\s-+\s|\bso\b", re.IGNORECASE)
_CLAUSE_CHARS = 60  # how far back a clause is read: a bounded amount of work per match
_WORD_PUNCTUATION = ".,;:!?\"'()[]*_~<>`"
_NAMED = re.compile(r"[\d.-]")


def clause_before(text: str, start: int) -> list[str]:
    """The words of `text` before `start` in the same clause (at most 60 characters back)."""
    clause = _CLAUSE.split(text[max(0, start - _CLAUSE_CHARS) : start])[-1]
    words = (w.strip(_WORD_PUNCTUATION).lower() for w in clause.replace("\u2019", "'").split())
    return [w for w in words if w]


def requested(words: list[str]) -> bool:
    """Whether what follows `words` is asked of the bot, not what the asker will do.

    `will you` asks; `I'll`, `will`, `gonna`, `let me` say what the asker will do.
    """
    return not any(
        w in _SELF and not (w == "will" and words[i + 1 : i + 2] == ["you"])
        for i, w in enumerate(words)
    )


def asked_for(text: str, start: int, end: int, *, loose: int | None = None) -> bool:
    """Whether the time at `text[start:end]` is asked for, as a reply in a thread asks.

    `what about the last 3 days?`, `check the last week`, `extend it to 3 days`, `go back
    further, like 3d`, `a 3 day lookback`, `I meant Nov 18`, a correction's time of the
    failure (`actually it failed on Nov 18`), or a reply that is only the time (`last 7d`,
    `prod-a, 3d please`, `since 2025-11-01 please`); never `it ran fine last week`, `3 days
    of training lost`, `I'll rerun it in 2h`, nor a time in passing (`wait 5 min`, `stuck for
    45 min`, `I mean it ran for 2 days fine`). `loose`: the count `_loose(text)`.
    """
    before = clause_before(text, start)
    if not requested(before):
        return False
    if _WITHIN.match(text, start, end) or _NAMED_AS.match(text, end) or led(text, start):
        return True
    if _said_of_failure(before, correcting=bool(_CORRECTING.match(text))):
        return not _fine(text, start, end)
    return (_loose(text) if loose is None else loose) == _loose(text[start:end])


def _said_of_failure(before: list[str], *, correcting: bool) -> bool:
    """`I meant Nov 18`; in a correction, `it failed on Nov 18` (`before`: the clause's words).

    Only the words just before the time: `I mean it ran for 2 days fine` and `actually the
    node was drained 2h ago` say something else of it.
    """
    at = len(before)
    while at and before[at - 1] in _BETWEEN:
        at -= 1
    said = before[at - 1] if at else ""
    return said in _MEANT or (correcting and bool(_FAILED_AT.match(said)))


def _fine(text: str, start: int, end: int) -> bool:
    """Whether the words around a time say the run was fine then (`no, last week it was ok`)."""
    around = text[max(0, start - _CLAUSE_CHARS) : end + _CLAUSE_CHARS].lower()
    return bool(_WELL.intersection(w.strip(_WORD_PUNCTUATION) for w in around.split()))


def led(text: str, start: int) -> bool:
    """Whether the words just before `start` ask for what follows: `what about`, `check`, `try`."""
    sentence = _SENTENCE.split(text[max(0, start - _CLAUSE_CHARS) : start])[-1]
    leading = [w.strip(_WORD_PUNCTUATION).lower() for w in sentence.split()]
    return bool(_LEADS.intersection(leading[-_LEAD_WORDS:]))


def _loose(text: str) -> int:
    """How many words of `text` are neither padding (`_ASKING`) nor shaped like a name."""
    words = (w.strip(_WORD_PUNCTUATION).lower() for w in text.split())
    return sum(1 for w in words if w and w not in _ASKING and not _NAMED.search(w))


#: Where a running job hangs (`stuck at step 0`, `stuck in the dataloader`, `stuck at 99%`):
#: it is running, so that `stuck` asks nothing about Pending.
_AT_A_STEP = (
    r"\s++(?:at|on|in|during|after)\s++(?:the\s++|a\s++)?(?:steps?|epochs?|iter(?:ation)?s?|"
    r"barrier|checkpoint(?:ing)?|batch(?:es)?|dataloader|all-?reduce|all-?gather|nccl|"
    r"\d++(?:\.\d++)?+\s*+%)"
)
#: Past tense: "why did it fail" asks about a finished run, not a current symptom.
PAST = re.compile(
    r"\b(did|was|were|failed|crashed|died|last run|yesterday|earlier)\b", re.IGNORECASE
)
#: The symptom words, including those the bot offers (`crash loop, image pull, init, mount`).
SYMPTOMS: tuple[tuple[Symptom, re.Pattern[str]], ...] = (
    (
        Symptom.INIT,
        re.compile(
            r"\binit(?:ialization|ializing)?[- ]?(?:containers?|error)?\b|init:", re.IGNORECASE
        ),
    ),
    (
        Symptom.IMAGE_PULL,
        re.compile(r"image[- ]?pull|errimagepull|imagepullbackoff|\bpull(ing)?\b", re.IGNORECASE),
    ),
    (Symptom.MOUNT, re.compile(r"\bmount|failedmount|\bvolume|\bpvc\b", re.IGNORECASE)),
    (
        Symptom.CRASHLOOP,
        re.compile(
            r"crash[- ]?loop|crashloopbackoff|keeps? (crashing|restarting)|restart(ing)? loop",
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
    (
        Symptom.PENDING,
        re.compile(
            rf"\b(?:stuck(?!{_AT_A_STEP})|pending|queued|still waiting|not (?:yet )?scheduled)\b",
            re.IGNORECASE,
        ),
    ),
)
