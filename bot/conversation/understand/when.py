"""Time words `bot.conversation.words` does not read: weekdays, the weekend, and "since <an event>".

"since Saturday" needs today's date, so it is read here, where the engine's clock is known.
"since the deploy" names no time at all: it is kept as said, so the answer can say which
lookback was used instead. "hasn't started in 20 min" is how long something has been
waiting, not a lookback: it asks why the current run is not running (the Pending answer).
"died after 30 min", "OOMed 2h in" and an alert's "for longer than 15 minutes" are how
long a run ran or waited: no lookback either.
"""

from __future__ import annotations

import re
from datetime import date

from bot.conversation.intent import symptom_asked
from bot.conversation.words import asked_for
from diagnosis import Symptom

__all__ = ["stuck", "weekday_lookback"]

_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_SHORT = {day[:3]: i for i, day in enumerate(_DAYS)} | {d: i for i, d in enumerate(_DAYS)}
_SINCE_DAY = re.compile(
    r"\b(?:since|from|over|after)\s++(?:last\s++|this\s++|the\s++)?"
    r"(mon|tue|wed|thu|fri|sat|sun|monday|tuesday|wednesday|thursday|friday|saturday|sunday|"
    r"weekend)(?:'s)?\b(?:\s++(?:morning|afternoon|evening|night))?",
    re.IGNORECASE,
)
_WEEKEND = re.compile(r"\b(?:over\s++)?(?:the\s++|this\s++)?weekend\b", re.IGNORECASE)
_LAST_WEEK = re.compile(r"\bsince\s++last\s++week\b", re.IGNORECASE)
_SINCE_EVENT = re.compile(
    r"\bsince\s++(?:the\s++|our\s++|their\s++|my\s++|last\s++|this\s++)?"
    r"((?:[a-z][\w'-]*+\s++){0,2}?(?:deploy|deployment|release|upgrade|restart|rollout|"
    r"migration|outage|incident|change|update|maintenance|reboot|rollback|merge|patch|"
    r"failover|it\s++started|then|forever|ever|whenever))\b",
    re.IGNORECASE,
)
_STUCK = re.compile(
    r"\b(?:has\s*+n[o']?t|has\s++not|did\s*+n[o']?t|does\s*+n[o']?t|never|not)\s++"
    r"(?:yet\s++)?(?:started|start|begun|began|run|ran|come\s++up|came\s++up|got\s++scheduled|"
    r"been\s++scheduled|scheduled|get\s++ready|got\s++ready|became\s++ready|become\s++ready|"
    r"ready)\b(?:\s++(?:yet|at\s++all))?"
    r"(?:\s++(?:in|for|after)\s++(?:the\s++)?(?:last\s++|past\s++)?(?:\d++|an?|one|two|few)"
    r"\s*+(?:m|mins?|minutes?|h|hrs?|hours?)\b)?"
    r"|\bwhy\s++is\s++(?:it|this|the\s++\w++)\s++(?:still\s++)?queued\b"
    r"|\bqueued\s++(?:for|since)\s++(?:\d++|an?|one|two|few)\s*+(?:m|mins?|minutes?|h|hrs?|hours?)\b"
    r"|\bstill\s++(?:waiting|pending|queued|in\s++the\s++queue)\b(?:\s++(?:after|for)\s++"
    r"(?:\d++|an?|one|two|few)\s*+(?:m|mins?|minutes?|h|hrs?|hours?)\b)?",
    re.IGNORECASE,
)


_AMOUNT = r"(?:\d++\s*+|(?:an?|one|two|three|few|couple(?:\s++of)?)\s++)"
_UNIT = r"(?:m|mins?|minutes?|h|hrs?|hours?|d|days?|w|wks?|weeks?)\b"
_RAN_FOR = re.compile(
    rf"\b(?:after|(?:longer|more)\s++than)\s++(?:about\s++|around\s++|~)?{_AMOUNT}{_UNIT}"
    rf"|(?<![\w.-]){_AMOUNT}{_UNIT}\s++in(?=\s*+(?:[.,;:!?)]|$))",
    re.IGNORECASE | re.MULTILINE,
)


def weekday_lookback(
    text: str, today: date, *, asked: bool = False
) -> tuple[str, str | None, str | None]:
    """A lookback read from a weekday or the weekend, else the words of an unreadable time.

    Returns the text without what was read, the lookback (`"3d"`), and an unreadable
    "since …" phrase as typed (None when there was none). `asked`: a weekday counts only
    when asked for (`what about since tuesday?`, not `it was fine over the weekend`). How
    long a run ran (`died after 30 min`) is cut too: it is no lookback.
    """
    text = _RAN_FOR.sub(" ", text)
    match = _SINCE_DAY.search(text) or _WEEKEND.search(text)
    if match is not None and asked and not asked_for(text, match.start(), match.end()):
        return text, None, None
    if match is not None:
        word = match.group(1).lower() if match.re is _SINCE_DAY else "weekend"
        day = _SHORT["sat"] if word == "weekend" else _SHORT[word[:3]]
        back = (today.weekday() - day) % 7 or (0 if word == "weekend" else 7)
        return _cut(text, match), f"{back + 1}d", None
    last_week = _LAST_WEEK.search(text)
    if last_week is not None and asked and not asked_for(text, *last_week.span()):
        return text, None, None
    if last_week is not None:
        return _cut(text, last_week), "14d", None
    event = _SINCE_EVENT.search(text)
    if event is not None and "yesterday" not in event.group(0).lower():
        return _cut(text, event), None, " ".join(event.group(0).split())
    return text, None, None


def stuck(text: str, *, asked: bool = False) -> tuple[str, Symptom | None]:
    """A current run that is not running yet ("hasn't started in 20 min"): Pending.

    `asked`: a plain reply after an answer, where it counts only when asked of the bot
    (`why is it still waiting?`, not `it's still waiting for me too`). Either way the phrase
    stands as the word `pending` in the text left, so `in 20 min` is no lookback and the
    sentence keeps its verb (`why is llama-3.1 still pending`: what is pending is named).
    """
    match = _STUCK.search(text)
    if match is None:
        return text, None
    rest = f"{text[: match.start()]} pending {text[match.end() :]}"
    if asked and not symptom_asked(text, *match.span()):
        return rest, None
    return rest, Symptom.PENDING


def _cut(text: str, match: re.Match[str]) -> str:
    return text[: match.start()] + " " + text[match.end() :]
