r"""The bounds of parsing: how much of a message is read, and the linear-time rule for reading it.

Every message, mention, thread reply and shortcut is parsed on the event loop that also
acknowledges everyone else's requests, so what one person types must cost little CPU
however it is written: tens of milliseconds at worst. Two rules keep it so, and every step
that reads a message's words (`parse` and each stage of `understand`)
keeps both:

1. **The cap.** Only the first `MAX_PARSED_CHARS` characters are read, cut at the end of
   the last whole word (`bounded`, the first step of `bot.conversation.parse.parse`). A question in
   chat is a line or two and an alert a few hundred characters; a longer message is a
   paste. How much was left unread is returned, and the engine tells the asker privately.
2. **Linear time.** Over the capped text every step is linear: each pattern reads each
   character a bounded number of times, whatever the text. In practice: a run that must
   not be given back is read possessively (`\s++`, `[A-Za-z0-9]++`) or in an atomic group;
   a name is read from the start of its word, never from inside one; a match that may
   stop anywhere (`[^>]*`) stops at the next place another match could start (`[^<>]*+`);
   and a pattern with `.*` between two words is never retried from every start of the
   first word (see `intent._evidence_spans`). Loops over words do a bounded amount of
   work per word. `tests/bot/conversation/test_parse_linear.py` and
   `tests/bot/conversation/understand/test_linear.py` hold the parser and the pipeline to
   this with adversarial inputs up to the cap, and `python3 dev.py bench --only parse`
   prints the parser's worst case.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["MAX_PARSED_CHARS", "Bounded", "bounded"]

#: How many characters of one message are parsed. A chat question or an alert fits many
#: times over, and 4,096 characters parse in tens of milliseconds at worst.
MAX_PARSED_CHARS = 4096

# The last word of a text and the whitespace before it (linear: each start scans one word).
_LAST_WORD = re.compile(r"\s\S*+\Z")


@dataclass(frozen=True)
class Bounded:
    """What is parsed of a message, and how many characters after it were not read."""

    text: str
    """At most `MAX_PARSED_CHARS` characters: the message, or its start up to a word's end."""
    ignored: int
    """Characters after `text` that were not read; 0 when nothing but whitespace was left."""


def bounded(text: str, limit: int = MAX_PARSED_CHARS) -> Bounded:
    """The first `limit` characters of `text`, without a word the limit would cut in two.

    A text with no whitespace before the limit is cut at the limit itself.
    """
    if len(text) <= limit:
        return Bounded(text, 0)
    head = text[:limit]
    if not text[limit].isspace():
        cut_word = _LAST_WORD.search(head)
        head = head[: cut_word.start()] if cut_word else head
    rest = text[len(head) :]
    return Bounded(head, 0 if rest.isspace() else len(rest))
