"""The one cut of a report's lists: the answer's room, later messages, and what is left out.

A platform passes only what it measures; here an item is its size, a title costs 1, and a
room has one figure (Teams' bytes) or two (Slack's characters and blocks, a block an item).
"""

from __future__ import annotations

import pytest

from bot.render.plan.overflow import EN_DASH, Room, pages, paginate
from bot.render.plan.sections import Section, Slot

TITLE = 1


def pack(section: Section[int], start: int, room: Room) -> tuple[int, list[int], Room]:
    """Items from `start` while they fit, after a title; every figure of the room counts."""
    used = [TITLE] + [0] * (len(room) - 1)
    taken: list[int] = []
    for size in section.items[start:]:
        grown = [used[0] + size, *(u + 1 for u in used[1:])]
        if any(g > r for g, r in zip(grown, room, strict=True)):
            break
        used = grown
        taken.append(size)
    return (len(taken), taken, tuple(used)) if taken else (0, [], tuple(0 for _ in room))


def lists(*sizes: tuple[int, ...]) -> list[Section[int]]:
    slots = (Slot.EVIDENCE, Slot.RECOMMENDATIONS, Slot.CANDIDATES, Slot.NOT_MEASURED)
    return [
        Section(slot, slot.value, ("item", "items"), s)
        for slot, s in zip(slots, sizes, strict=False)
    ]


def dashes(ranges: str) -> str:
    """Ranges as written here: `evidence 1-2 of 3` (a message has an en dash)."""
    return ranges.replace(EN_DASH, "-")


def whole(sections: list[Section[int]]) -> Room:
    return (sum(TITLE + sum(s.items) for s in sections[1:] if s.items),)


@pytest.mark.parametrize(
    ("sizes", "room", "limit", "cut"),
    [
        # everything fits the answer: no later message, nothing left out.
        (((2, 2), (3,)), 20, 3, ([[2, 2], [3]], (0, 0), (0, 0), [])),
        # the evidence gets what the other lists leave it (20 - 11 = 9): two lines.
        (((4, 4, 4), (10,)), 20, 3, ([[4, 4], [10]], (1, 0), (0, 0), ["evidence 3-3 of 3"])),
        # but at least half the room (10): the recommendation then waits for a later message.
        (((4, 4, 4), (14,)), 20, 3, ([[4, 4], []], (1, 1), (0, 0),
                                     ["evidence 3-3 of 3; recommendations 1-1 of 1"])),
        # later messages carry, in order, what the answer had no room for; the rest is counted.
        (((9, 9, 9, 9, 9),), 10, 1, ([[9]], (2,), (2,), ["evidence 2-3 of 5"])),
        # no later message allowed: everything beyond the answer is left out.
        (((4, 4, 4), (9,)), 10, 0, ([[4], []], (0, 0), (2, 1), [])),
    ],
)  # fmt: skip
def test_the_lists_are_cut_into_the_answer_later_messages_and_left_out(sizes, room, limit, cut):
    sections = lists(*sizes)
    paged = paginate(
        sections, pack, room=(room,), others=whole(sections), page_room=(20,), limit=limit
    )
    assert (
        paged.bodies,
        paged.later,
        paged.left_out,
        [dashes(p.ranges) for p in paged.pages],
    ) == cut
    for i, section in enumerate(sections):
        assert len(paged.bodies[i]) + sum(paged.counts(i)) == len(section.items)


def test_every_figure_of_a_room_limits_the_cut():
    """Slack counts characters and blocks: a message runs out of either."""
    [one] = lists((1,) * 10)
    paged = paginate([one], pack, room=(100, 3), others=(0, 0), page_room=(100, 4), limit=5)
    assert [len(b) for b in paged.bodies] == [3]
    assert [p.counts for p in paged.pages] == [(4,), (3,)]
    assert paged.left_out == (0,)


def test_later_messages_alone_and_the_cursor_they_leave():
    """Show all evidence has no answer: only later messages, from the start."""
    sections = lists((5, 5, 5), (5, 5))
    cursor = [0, 0]
    found = pages(sections, pack, (12,), 2, cursor)
    assert [dashes(p.ranges) for p in found] == [
        "evidence 1-2 of 3",
        "evidence 3-3 of 3; recommendations 1-1 of 2",
    ]
    assert [p.body for p in found] == [[5, 5], [5, 5]]
    assert cursor == [3, 1]  # one recommendation is left for the caller to count


def test_nothing_to_place_makes_no_message():
    assert pages(lists((), ()), pack, (10,), 3) == []
