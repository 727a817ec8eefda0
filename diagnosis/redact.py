"""The redaction stage: masks credentials in upstream text before it can enter a report.

Every upstream string the engine quotes goes through `Redactor.clean` first. Replacements
are visible and typed (`[REDACTED:jwt]`) so a reader knows something was there, and the
redactor counts what it masked so the report can say so. Only the secret is replaced: the
key name, the URL host and the surrounding sentence stay readable. Cleaning is idempotent:
markers are never re-redacted or counted again. The shapes are in `secret_rules`; `shorten`
and `clip` cut long quoted text without cutting through a marker.

Terminal escape sequences (colour codes), control characters other than line breaks and tabs,
and invisible format characters (zero-width, bidi, soft hyphen) are dropped first: every
renderer drops them, so a secret they split (`ghp_abc<ESC>[0mdef…`, a coloured `password`
key) would reach the reader whole. The rules read the text as it will be shown.

A rule that rejects a value looks inside it again (`config=url?password=…`), and inside what
it finds there, up to `_LOOKS_INSIDE` levels deep. Deeper than that it fails closed: the rest
of the text is masked unread, so no secret a deeper look would find stays visible, and
redaction stays linear.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from diagnosis.secret_checks import SCHEMES, sensitive_key
from diagnosis.secret_rules import RULES, Rule
from diagnosis.secret_values import secret_span, trailing_punctuation_end

__all__ = [
    "MARKER",
    "RULES",
    "Redactor",
    "Rule",
    "clip",
    "quote",
    "redact",
    "sensitive_key",
    "shorten",
]

MARKER = re.compile(r"\[REDACTED:[a-z0-9-]+\]")
_AFTER_MARKER = frozenset(" \t\r\n@/:?&#\"'\\;,)]}>")
#: An escape sequence (CSI such as a colour code, OSC such as a title or a link, or one more
#: character), a control character but `\t`, `\n` and `\r`, a lone surrogate, or a format
#: character (Unicode category Cf: soft hyphen, zero-width, bidi, invisible tags).
_INVISIBLE = re.compile(
    r"\x1b(?:\[[0-?]*+[ -/]*+[@-~]?|\][^\x07\x1b\n]*+(?:\x07|\x1b\\)?|[@-_])?"
    r"|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\xad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891"
    r"\u08e2\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ud800-\udfff\ufeff"
    r"\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3"
    r"\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f]"
)


@dataclass(frozen=True)
class _Index:
    """Which rules a text's hints call for: by hint, and the rules that run on every text."""

    hints: tuple[str, ...]
    by_hint: dict[str, frozenset[int]]
    always: frozenset[int]

    @classmethod
    def of(cls, rules: tuple[Rule, ...]) -> _Index:
        by_hint: dict[str, set[int]] = {}
        for index, rule in enumerate(rules):
            for hint in rule.hints:
                by_hint.setdefault(hint, set()).add(index)
        always = frozenset(i for i, rule in enumerate(rules) if not rule.hints)
        frozen = {hint: frozenset(found) for hint, found in by_hint.items()}
        return cls(tuple(sorted(frozen)), frozen, always)

    def called(self, present: set[str], after: int) -> list[int]:
        """The rules, in order, past index `after`, that the hints `present` call for."""
        wanted = set(self.always)
        for hint in present:
            wanted |= self.by_hint[hint]
        return sorted(i for i in wanted if i > after)


_RULES_INDEX = _Index.of(RULES)
#: How many times one rule looks again inside a value it rejected, and inside the values
#: found there: enough for any real nesting (`config=url?password=…`). Each look may read to
#: the value's end, so looking inside every `=` of `key=key=key=…` is quadratic; bounded, a
#: nest costs at most 17 reads of its length. A rule that would look deeper fails closed: it
#: masks from that value to the end of the text, unread (skipping it instead left a secret
#: nested 17 deep visible). Nothing narrower is both exact and linear: a nested value is only
#: judged by reading it whole (a search stopped at a window's edge may take a shorter branch
#: or miss a long key), and some rules' matches run on past the end of the line (`.netrc`).
_LOOKS_INSIDE = 16


@dataclass
class Redactor:
    """Masks secrets in text and counts what it masked (per kind)."""

    counts: dict[str, int] = field(default_factory=dict)
    rules: tuple[Rule, ...] = field(default=RULES, repr=False)
    _index: _Index = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._index = _RULES_INDEX if self.rules is RULES else _Index.of(self.rules)

    @property
    def total(self) -> int:
        """How many values were masked so far."""
        return sum(self.counts.values())

    def clean(self, text: str | None) -> str:
        """Return `text` with every recognised secret replaced by `[REDACTED:<kind>]`."""
        if not text:
            return ""
        if _INVISIBLE.search(text):
            text = _INVISIBLE.sub("", text)
        # Every rule's hints are searched once per text; only the rules they call for (and
        # the few without hints) run, in rule order. A rule that masks something changes the
        # text, and markers carry words (`key`) later rules' hints look for: the hints are
        # searched again and the rules after it chosen again.
        present, after = self._present(text), -1
        called = self._index.called(present, after)
        while called:
            index, *called = called
            cleaned = self._apply(self.rules[index], text)
            if cleaned is not text:
                text, after = cleaned, index
                called = self._index.called(self._present(cleaned), after)
        return text

    def _present(self, text: str) -> set[str]:
        lowered = text.lower()
        return {hint for hint in self._index.hints if hint in lowered}

    def _apply(self, rule: Rule, text: str) -> str:
        parts: list[str] = []
        done = pos = 0
        rejected_to, inside = -1, 0  # how far the rejected matches reached; how many inside
        while (m := rule.pattern.search(text, pos)) is not None:
            start, end = secret_span(m)
            end = trailing_punctuation_end(text, start, end)
            if start == end or _masked(text, start, end) or (rule.accept and not rule.accept(m)):
                inside = inside + 1 if m.start() < rejected_to else 0
                rejected_to = max(rejected_to, m.end())
                if inside >= _LOOKS_INSIDE:  # `key=key=key=…`: too deep to read inside again
                    return self._masked_from(rule, text, parts, done, start)
                pos = start if start > m.start() else m.start() + 1  # look inside the value
                continue
            parts += (text[done:start], self._marker(rule))
            done = pos = end
        return "".join((*parts, text[done:])) if parts else text

    def _masked_from(self, rule: Rule, text: str, parts: list[str], done: int, at: int) -> str:
        """Fail closed: `text` as masked so far (`parts` up to `done`), and masked from `at` on.

        Trailing whitespace stays; so does a rest that is nothing but markers, so that cleaning
        the result again changes nothing.
        """
        end = len(text.rstrip())
        if MARKER.sub("", text[at:end]).strip():
            parts = [*parts, text[done:at], self._marker(rule)]
            done = end
        return "".join((*parts, text[done:])) if parts else text

    def _marker(self, rule: Rule) -> str:
        """The marker for one more value of `rule`'s kind, counted."""
        self.counts[rule.kind] = self.counts.get(rule.kind, 0) + 1
        return f"[REDACTED:{rule.kind}]"


def redact(text: str | None) -> str:
    """The one redaction function: `text` with every recognised secret masked.

    Everything that quotes upstream text (evidence, headlines, log lines, the bot's own log
    records) goes through here or through a `Redactor` it shares; a report's redaction count
    is derived from the markers this leaves (`diagnosis.report.count_redactions`).
    """
    return Redactor().clean(text)


def quote(text: str | None, limit: int = 240) -> str:
    """Upstream text as a report quotes it: redacted first, then shortened (`shorten`)."""
    return shorten(redact(text), limit)


def _masked(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] was already masked (idempotence).

    It was if only markers (and punctuation, or an auth scheme) are left in it, or if it
    starts with a marker that context follows (`[REDACTED:github-token]@github.com`).
    """
    covered = [
        m.span() for m in MARKER.finditer(text, max(0, start - 64), end + 64)
        if m.start() < end and m.end() > start
    ]  # fmt: skip
    if not covered:
        return False
    first_end = covered[0][1]
    if covered[0][0] <= start and (first_end >= end or text[first_end] in _AFTER_MARKER):
        return True
    residue, cur = [], start
    for lo, hi in covered:
        residue.append(text[cur:lo] if lo > cur else "")
        cur = max(cur, hi)
    residue.append(text[cur:end] if end > cur else "")
    rest = "".join(residue).strip(" \t\"'`.,;:)]}>")
    return not rest or rest.lower() in SCHEMES


def shorten(text: str, limit: int = 240) -> str:
    """Collapse whitespace; cut the middle out of long text, keeping its start and its end.

    Errors put the cause last (containerd: `failed to pull …: 401 Unauthorized`), so the
    tail is worth more than the middle. Cuts fall on word boundaries, never inside a marker.
    """
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    head = limit * 2 // 5
    tail = limit - head - 3
    end, start = _cut_before(flat, head), _cut_after(flat, len(flat) - tail)
    if start <= end or (end == 0 and start == len(flat)):
        return flat  # nothing to cut between whole words and markers
    if end == 0:
        return f"… {flat[start:].lstrip()}"
    if start == len(flat):
        return f"{flat[:end].rstrip()} …"
    return f"{flat[:end].rstrip()} … {flat[start:].lstrip()}"


def clip(text: str, at: int, limit: int = 200) -> str:
    """Collapse whitespace; keep about `limit` characters of `text` around offset `at`.

    The window starts a little before `at` (the words leading up to what matters) and cuts
    on word boundaries, never inside a marker; `…` stands for what was cut on either side.
    """
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    at = len(" ".join(text[:at].split())) + (1 if text[:at][-1:].isspace() else 0)
    lead = min(at, limit // 5)
    start = min(_cut_after(flat, at - lead), at) if at - lead > 0 else 0
    marker = _inside_marker(flat, start)
    if marker:
        start = marker[0]
    end = _cut_before(flat, min(len(flat), start + limit - 4))
    if end <= start:  # one marker or word longer than the window: keep the marker whole
        end = min(len(flat), start + limit - 4)
        marker = _inside_marker(flat, end)
        if marker:
            end = marker[1]
    body = flat[start:end].strip()
    return ("… " if start > 0 else "") + body + (" …" if end < len(flat) else "")


_WORD_SLACK = 24  # how far a cut may move to reach a space before it cuts inside a word


def _inside_marker(text: str, at: int) -> tuple[int, int] | None:
    for m in MARKER.finditer(text, max(0, at - 40), at + 40):
        if m.start() < at < m.end():
            return m.span()
    return None


def _cut_before(text: str, at: int) -> int:
    """The cut at or before `at` that ends a word and is not inside a marker."""
    marker = _inside_marker(text, at)
    if marker:
        at = marker[0]
    space = text.rfind(" ", max(0, at - _WORD_SLACK), at + 1)
    if space > 0 and not _inside_marker(text, space):
        return space
    return at


def _cut_after(text: str, at: int) -> int:
    """The cut at or after `at` that starts a word and is not inside a marker."""
    marker = _inside_marker(text, at)
    if marker:
        at = marker[1]
    space = text.find(" ", at - 1, at + _WORD_SLACK)
    if space >= 0 and not _inside_marker(text, space):
        return space + 1
    return at
