"""One cited evidence line, and `merge`: the lines that report one fact, read as one line.

Both sit below the report model (`diagnosis.report` re-exports `EvidenceLine`), so the report,
the rules that cite signals and `diagnosis.facts` all import them without a cycle.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict, model_validator

__all__ = ["EvidenceLine", "merge"]


class EvidenceLine(BaseModel):
    """One quantified, cited observation. `source` is the skill's tool name (or kubectl).

    Attributes:
        sources: every source that reported this same fact, `source` first (one line with
            all its sources, instead of one line per source).
        deciding: one of the few lines that decide the verdict (the direct signal, the
            quantities, the failing log line); the rest support it.
        pod, rank: the pod (and distributed rank) the line is about, when known.
        fact: lines that report the same fact share this key (`diagnosis.facts`); None
            for a line that is a fact of its own.
    """

    model_config = ConfigDict(frozen=True)

    text: str
    source: str
    sources: tuple[str, ...] = ()
    deciding: bool = False
    pod: str | None = None
    rank: int | None = None
    fact: str | None = None

    @model_validator(mode="after")
    def _own_source_first(self) -> EvidenceLine:
        if not self.sources or self.sources[0] != self.source:
            merged = (self.source, *(s for s in self.sources if s != self.source))
            object.__setattr__(self, "sources", merged)
        return self


def merge(lines: Iterable[EvidenceLine]) -> tuple[EvidenceLine, ...]:
    """One line per fact, in the order facts first appear, with all the fact's sources.

    Lines of one fact share their `fact` key; a line without one is its own fact, and the
    same text from two sources is one fact too. The first line of a fact speaks for it; the
    fact decides the verdict when any of its lines does.
    """
    facts: dict[str, list[EvidenceLine]] = {}
    for line in lines:
        facts.setdefault(line.fact or f"text:{' '.join(line.text.split())}", []).append(line)
    merged = []
    for members in facts.values():
        first = members[0]
        sources = tuple(dict.fromkeys(s for m in members for s in m.sources))
        merged.append(
            first.model_copy(
                update={
                    "sources": sources,
                    "deciding": any(m.deciding for m in members),
                    "pod": next((m.pod for m in members if m.pod), None),
                    "rank": next((m.rank for m in members if m.rank is not None), None),
                }
            )
        )
    return tuple(merged)
