"""What was pasted in code blocks: read after what the asker wrote, and never more workloads.

A code block is output (`kubectl describe`, a log, a stack trace): its times are no lookback
(`AGE 5m`), and the names in it come after the asker's own words, so `it's train-bert in
nlp` below an event that names a PVC asks about train-bert. Beside a workload the asker
named, a name only the paste shows is never a further workload to diagnose.
"""

from __future__ import annotations

from bot.conversation.parse import Query
from bot.conversation.understand.dates import without_dates
from bot.conversation.understand.markup import FENCE
from bot.conversation.words import without_times

__all__ = ["further", "uncoded"]

#: Between code blocks cut in one pass: a character no message keeps (`clean` drops it).
_APART = "\x00"
_PUNCTUATION = ".,;:!?\"'()[]{}*_~<>`"


def uncoded(text: str) -> tuple[str, frozenset[str]]:
    """`text` without its `FENCE` lines, code last, and the words only its code blocks hold.

    The code blocks' times and dates are cut (`AGE 5m`); the words are lower-cased, as
    names are compared.
    """
    if FENCE not in text:
        return text, frozenset()
    blocks = text.split(FENCE)
    code = blocks[1::2]
    # All blocks in one pass (a message of backticks is thousands of empty blocks); no time or
    # date spans the NUL between two, and should one ever take it, each block goes alone.
    cut = without_times(without_dates(_APART.join(code))).split(_APART)
    if len(cut) != len(code):
        cut = [without_times(without_dates(block)) for block in code]
    written = _words(blocks[0::2])
    return "\n".join([*blocks[0::2], *cut]), frozenset(_words(cut) - written)


def further(others: list[str], query: Query, pasted: frozenset[str]) -> list[str]:
    """The further workloads: never a slot's value, nor only pasted beside one written.

    `pasted`: the words only code blocks (`uncoded`) or quotes hold. A workload the asker wrote
    (`it's train-bert`) is the one asked about; a paste's `pvc "nlp-data" not found` is not
    a second one. Names that are all pasted (a list of workloads) are kept.
    """
    taken = {query.workload_name, query.cluster, query.project}
    written = query.workload_name is not None and query.workload_name not in pasted
    return [n for n in others if n not in taken and not (written and n in pasted)]


def _words(blocks: list[str]) -> set[str]:
    return {w.strip(_PUNCTUATION).lower() for block in blocks for w in block.split()}
