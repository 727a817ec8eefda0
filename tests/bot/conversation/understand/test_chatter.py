"""Chatter is not an answer: everyday words never fill a slot unless something is called that.

A property over every everyday word the bot knows (`vocabulary.COMMON`), up to five at a
time, on every platform, in any state of the thread: whatever slot comes out is a known
cluster or project, exactly or as a near miss (which the bot asks about, never uses).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.conversation import Markup
from bot.conversation.parse import Expecting
from bot.conversation.understand.pipeline import Known, understand
from bot.conversation.understand.vocabulary import COMMON, near_misses

KNOWN = Known(
    clusters=("prod-a", "prod-b", "staging", "gpu-east"),
    projects=("nlp", "vision", "ml-team", "search", "ads"),
)
ENTITIES = (*(KNOWN.clusters or ()), *(KNOWN.projects or ()))
#: The everyday words, as typed (apostrophes and all); `?`/`!` variants are punctuation.
WORDS = sorted(w for w in COMMON if w.replace("'", "").replace("-", "").isalpha())


def _known_or_near(value: str) -> bool:
    return value.casefold() in {e.casefold() for e in ENTITIES} or bool(
        near_misses(value, ENTITIES)
    )


@given(
    words=st.lists(st.sampled_from(WORDS), min_size=1, max_size=5),
    punctuation=st.sampled_from(["", "?", "!", "...", " :eyes:", " tbh"]),
    expecting=st.sampled_from([None, *Expecting]),
    markup=st.sampled_from(list(Markup)),
    directed=st.booleans(),
)
@settings(max_examples=600, deadline=None)
def test_everyday_words_fill_no_slot_but_a_known_one(
    words, punctuation, expecting, markup, directed
):
    text = " ".join(words) + punctuation
    understood = understand(
        text, markup=markup, expecting=expecting, known=KNOWN, directed=directed
    )
    query = understood.query
    assert query.workload_id is None
    assert query.workload_name is None, text
    assert understood.others == understood.pods == ()
    assert understood.fragment is None, text
    for value in (query.cluster, query.project):
        assert value is None or _known_or_near(value), (text, value)


def test_the_vocabulary_is_big_enough_to_mean_something():
    assert len(WORDS) > 500
    assert {"brb", "checking", "meeting", "office", "idk", "tbh"} <= set(WORDS)


def test_a_project_called_like_an_everyday_word_is_still_a_project():
    known = Known(clusters=("prod-a",), projects=("search",))
    understood = understand("search", expecting=Expecting.PROJECT, known=known, directed=False)
    assert understood.query.project == "search"
    other = understand("office", expecting=Expecting.PROJECT, known=known, directed=False)
    assert other.query.project is None  # everyday, and none of theirs: not a project
