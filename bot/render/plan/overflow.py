"""What overflows: which items of a report's lists fit in the answer, the next messages, or none.

The one cut every platform makes. The answer keeps its head, recurrence and closing whole;
the lists get the room that is left, in `ORDER`, the evidence first but never more than the
room the other lists leave it (and always at least half). What does not fit goes, in order,
into at most `limit` later messages (Slack's thread replies, Teams' next activities), each
headed by the ranges it carries ("evidence 7 to 40 of 52; candidates 1 to 3 of 3"); whatever is
still left is counted, never shown. A platform says only what it measures: the room of a
message (`Room`, as many figures as it counts: Slack characters and blocks, Teams bytes)
and how many items from where fit in a room (`pack`), in its own format `B`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from bot.render.plan.sections import Section

__all__ = [
    "EN_DASH",
    "MAX_EVIDENCE_MESSAGES",
    "MAX_REPLIES",
    "Page",
    "Paged",
    "Room",
    "pages",
    "paginate",
]

MAX_REPLIES = 3  # later messages an answer may add; the rest is counted, not posted.
MAX_EVIDENCE_MESSAGES = 5  # messages "Show all evidence" may post.

T = TypeVar("T")
B = TypeVar("B")
#: What a message has room for, in each figure a platform counts.
Room = tuple[int, ...]
EN_DASH = "\u2013"  # between the numbers of a range: "evidence 41 to 120 of 300".


def _less(room: Room, used: Room) -> Room:
    return tuple(r - u for r, u in zip(room, used, strict=True))


@dataclass(frozen=True)
class Page(Generic[B]):
    """A later message: the ranges it carries, its items, and how many of each section."""

    ranges: str
    body: list[B]
    counts: tuple[int, ...]


@dataclass(frozen=True)
class Paged(Generic[B]):
    """The answer's lists cut to fit: in the answer, in later messages, left out."""

    bodies: list[list[B]]  # each section's title and items in the answer (none: empty)
    pages: list[Page[B]]
    later: tuple[int, ...]  # each section's items in `pages`
    left_out: tuple[int, ...]  # each section's items in no message

    def counts(self, index: int) -> tuple[int, int]:
        """Section `index`'s items in later messages, and left out."""
        return self.later[index], self.left_out[index]


def pages(
    sections: Sequence[Section[T]],
    pack: Callable[[Section[T], int, Room], tuple[int, list[B], Room]],
    room: Room,
    limit: int,
    cursor: list[int] | None = None,
) -> list[Page[B]]:
    """At most `limit` messages carrying, in order, the sections' items from `cursor` on.

    `pack(section, start, room)` says how many of the section's items from `start` fit in
    `room` (0 when none does), gives the section's title and those items in the platform's
    format, and the room they take. Each message has `room`; `cursor` (each section's first
    item not yet placed; the start when None) moves on past the items placed.
    """
    cursor = [0] * len(sections) if cursor is None else cursor
    found: list[Page[B]] = []
    while len(found) < limit and any(
        c < len(s.items) for c, s in zip(cursor, sections, strict=True)
    ):
        left = room
        body: list[B] = []
        ranges: list[str] = []
        counts = [0] * len(sections)
        for i, section in enumerate(sections):
            if cursor[i] >= len(section.items):
                continue
            count, taken, used = pack(section, cursor[i], left)
            if count == 0:
                break  # no room left here: the rest starts the next message, in order.
            total = len(section.items)
            ranges.append(f"{section.noun} {cursor[i] + 1}{EN_DASH}{cursor[i] + count} of {total}")
            cursor[i] += count
            counts[i] = count
            body += taken
            left = _less(left, used)
        if not ranges:
            break  # unreachable: an item is far smaller than an empty message's room.
        found.append(Page("; ".join(ranges), body, tuple(counts)))
    return found


def paginate(
    sections: Sequence[Section[T]],
    pack: Callable[[Section[T], int, Room], tuple[int, list[B], Room]],
    *,
    room: Room,
    others: Room,
    page_room: Room,
    limit: int,
) -> Paged[B]:
    """The sections cut into the answer's `room`, then into at most `limit` later messages.

    `others` is what the sections after the evidence would take whole: the evidence gets
    what they leave of `room`, at least half of it. Each later message has `page_room`.
    """
    first = tuple(max(r - o, r // 2) for r, o in zip(room, others, strict=True))
    taken: list[int] = []
    bodies: list[list[B]] = []
    for i, section in enumerate(sections):
        count, body, used = pack(section, 0, first if i == 0 else room)
        room = _less(room, used)
        taken.append(count)
        bodies.append(body)
    cursor = list(taken)
    later = pages(sections, pack, page_room, max(0, limit), cursor)
    placed = tuple(sum(p.counts[i] for p in later) for i in range(len(sections)))
    left_out = tuple(len(s.items) - t - p for s, t, p in zip(sections, taken, placed, strict=True))
    return Paged(bodies, later, placed, left_out)
