"""Everyday words of incident chat, and how close a typed name is to a known one.

A word of everyday English (`checking`, `meeting`, `office`) is never taken for a cluster,
project or workload unless one of those is called exactly that: chatter in a thread must
not become a slot. A typed name that is *close* to a known one (`nlpp`, `prod-aa`) is a
near miss: the bot asks about it with buttons, it never picks it.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

from bot.conversation.words import NOT_NAMES

__all__ = ["CHATTER_PHRASE", "COMMON", "MAX_SUGGESTIONS", "is_common", "near_misses"]


#: Words people type around a question or instead of one; with `bot.conversation.words.NOT_NAMES`.
def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


_EVERYDAY = _set(
    """about above across act add afk after again against ago agree ahead all almost alone
    along already alright also although always am among and another answer any anybody
    anyone anyway anywhere apparently appreciate are area around as ask asked asking at
    away back bad bit brb break bring btw busy but call called came can cannot cant care
    case catch change channel chat check checked checking come coming confirm could couldn't
    coffee day deal did didn't different do does doesn't doing don't done down during each
    early easy either else email end enough even ever every everyone everything exactly
    eyes fast feel few figure find fine first fix fixing follow for forgot found friday
    from full give glad go goes going gone good got guess guys had hand happy hard has
    hasn't have haven't having he hear help her here hey him his hold home hope how
    however hour idk if important in info into is isn't it it's just keep kind knew know
    later least leave left let lgtm like likely little look looked looking looks lot lunch
    made make man many maybe me mean meant meeting mine minute miss monday more most much
    must my myself need needs never next nice no nobody none not nothing now of off office
    often oh ok okay omw on once one only open or other others our out over own people
    perhaps person ping pinged place plan please point possible pretty probably problem
    question quick quickly quite rather read ready real really reason remember reply
    reported right said same saturday saw say see seem seems seen sent should shouldn't
    since so some someone something sometimes soon sorry still stuff sunday sure take
    talk tbh team tell than thank thanks that the their them then there these they thing
    things think this those though thought through thursday till to today together told
    too took tried true try trying tuesday turn understand until up update us use used
    very wait want wanted was wasn't watch way we wednesday week well went were what
    whatever when where whether which while who whole why will wish with without wonder
    won't work worked working would wouldn't wrong yeah year yes yesterday yet you your
    yours ping lemme gonna wanna gotta kinda sorta ooh hmm ahh welp asap fyi imo imho
    afaik iirc tl;dr nvm np ty thx pls plz eta wip sec secs moment mins quick ok? ok!
    january february march april june july august september october november december
    jan feb mar apr jun jul aug sep sept oct nov dec
    step steps epoch epochs iteration iterations iter barrier checkpoint checkpoints batch
    batches rank ranks worker workers dataloader loss nan gradient gradients allreduce
    all-reduce allgather all-gather"""
)

#: Never a name unless something is called exactly that.
COMMON = NOT_NAMES | _EVERYDAY

#: A whole message that is talk, not a request (`brb`, `checking now`, `same as yesterday`).
CHATTER_PHRASE = re.compile(
    r"^(?:brb|afk|omw|lgtm|fyi|nvm|bbiab|one sec(?:ond)?|give me a (?:sec|minute|min)|"
    r"(?:i'?m\s++)?(?:checking|looking)(?:\s++(?:now|it|on it|into it|into this))?|"
    r"on it|(?:i'?ll|will|let me|lemme)\s++(?:check|look)(?:\s++(?:now|later|into it|at it))?|"
    r"no idea(?:\s++(?:tbh|honestly|sorry))?|same(?:\s++(?:here|again|issue|thing))?|"
    r"same (?:as|like) (?:yesterday|before|last time|last week|earlier|always)|"
    r"(?:any|no) (?:news|update|luck)(?: yet)?|ping me(?: when .*+)?|following)"
    r"(?:\s++(?:tbh|lol|haha|thanks|thx))?$",
    re.IGNORECASE,
)

#: How many near matches are offered as buttons.
MAX_SUGGESTIONS = 3
_NEAR_RATIO = 0.75
_MIN_PREFIX = 3  # `staging` is near `staging-west`; `pr` is near nothing


def is_common(word: str) -> bool:
    """Whether `word` is an everyday word (never a name unless one is called exactly that)."""
    return word.strip(".,;:!?\"'()[]*_~").lower() in COMMON


def near_misses(typed: str, known: Iterable[str]) -> list[str]:
    """The known names close to `typed` (one typo, a missing or doubled letter), best first.

    Never `typed` itself; at most `MAX_SUGGESTIONS`. Compares at most the first 64
    characters, so a long typed word costs little.
    """
    wanted = typed.casefold()[:64]
    scored = []
    for name in known:
        folded = name.casefold()
        if folded == wanted:
            continue
        if len(wanted) >= _MIN_PREFIX and (folded.startswith(wanted) or wanted.startswith(folded)):
            scored.append((-1.0, name))  # `staging` for `staging-west`
            continue
        matcher = difflib.SequenceMatcher(None, wanted, folded[:64])
        if matcher.quick_ratio() < _NEAR_RATIO:
            continue
        ratio = matcher.ratio()
        if ratio >= _NEAR_RATIO:
            scored.append((-ratio, name))
    return [name for _, name in sorted(scored)[:MAX_SUGGESTIONS]]
