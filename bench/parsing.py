"""`--only parse`: what one message costs the parser, at worst, in CPU on the event loop.

Every hostile input of `HOSTILE_PIECES`, repeated to the cap (`MAX_PARSED_CHARS`), in
plain and upper case, is parsed; the worst is printed beside a plain question at the cap,
a one-line question and the 40,000-character `show show show …` mention of issue 20 (about
4 s before the cap and the linear patterns). Figures only: nothing is asserted here
(`tests/bot/conversation/test_parse_linear.py` holds parsing to linear time).
"""

from __future__ import annotations

import gc
import time

from bench.stats import Figure
from bot.conversation.parse import parse
from bot.conversation.parse_bounds import MAX_PARSED_CHARS

__all__ = ["HOSTILE_PIECES", "QUESTION", "repeated", "rows"]

#: The pieces of hostile input: the words the patterns look for, runs they read, fragments
#: of markup. Repeated and mixed, they drove the old patterns quadratic.
HOSTILE_PIECES = [
    "show ", "show me the ", "see ", "all the ", "more ", "logs ", "in ", "on ", "at ",
    "on the ", "in the ", "cluster ", "project ", "job ", "workload ", "node ", "cluster=",
    "= ", "=", ": ", "last ", "past ", "since ", "over the last ", "couple of ", "this ",
    "the ", "1 ", "1", "2h ", "init ", "crash ", "keeps ", "image ", "pull ", "re-", "again ",
    "a", "a-", "a.", "-", ".", "_", "a_", "é", "é ", ":a", ":", "<@", "<@U1", "<@A|", "<@U1> ",
    "<@UBOT|bot> ", ">", "&#9", "&amp;", "&", " ", "  ", "\n", "`", "*", "?", "prod-a ",
    "train-bert ", "3f1c2a9e-5b7d-4c1e-9a2f-8d6b0e4c7a11 ", "a" * 300, "a-" * 130,
]  # fmt: skip
QUESTION = "why did training-job-42 in ml-team fail on cluster prod-a? "
INCIDENT = "<@UBOT> " + "show " * 8000
_RUNS = 5


def repeated(pieces: str, length: int) -> str:
    """`pieces` over and over, cut at `length` characters."""
    return (pieces * (length // max(len(pieces), 1) + 1))[:length]


def _cpu_ms(text: str) -> float:
    """The least CPU time of this thread, in ms, over `_RUNS` parses of `text`."""
    best = float("inf")
    gc.disable()
    try:
        for _ in range(_RUNS):
            started = time.thread_time()
            parse(text, bot_user_id="UBOT")
            best = min(best, time.thread_time() - started)
    finally:
        gc.enable()
    return best * 1000


def rows() -> list[Figure]:
    """The parse figures for the benchmark's table."""
    hostile = [repeated(p, MAX_PARSED_CHARS) for p in HOSTILE_PIECES]
    worst_ms, worst = max((_cpu_ms(t), t) for t in [*hostile, *map(str.upper, hostile)])
    question_ms = _cpu_ms(repeated(QUESTION, MAX_PARSED_CHARS))
    cap = f"{MAX_PARSED_CHARS:,}"
    return [
        Figure(
            f"7. parse: worst of {2 * len(hostile)} hostile inputs at the {cap}-char cap",
            f"{worst_ms:.1f} ms CPU ({worst[:24]!r}…)",
        ),
        Figure(
            f"   parse: plain questions filling the {cap}-char cap", f"{question_ms:.1f} ms CPU"
        ),
        Figure("   parse: one-line question", f"{_cpu_ms(QUESTION):.2f} ms CPU"),
        Figure(
            "   parse: issue 20's 40,000-char `show show …`",
            f"{_cpu_ms(INCIDENT):.1f} ms CPU (the first {cap} characters read)",
        ),
    ]
