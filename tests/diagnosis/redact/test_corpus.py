"""The corpus proves redaction: zero leaks, zero over-redaction, and every rule pulls its weight."""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from diagnosis.redact import MARKER, RULES, Redactor, Rule
from tests.diagnosis.redact.corpus import CLEAN, LEAKS, Leak

# Rules whose every corpus secret is also caught by a later, generic rule: dropping one of
# them leaks nothing but loses its typed marker, which the corpus also fails on. An AWS secret
# key next to its key id or name is also a bare 40-character key (`aws-secret-bare`) or a blob
# after a key word (`secret-blob`); an Azure `AccountKey=` is a `KEY=value` (`secret-value`).
KIND_ONLY = {"docker-auth", "aws-secret-key", "azure-storage-key"}


def corpus_failures(rules: tuple[Rule, ...] = RULES, leaks: Iterable[Leak] = LEAKS) -> list[str]:
    """Every way the corpus fails under `rules`: a surviving secret, or a missing marker."""
    failures = []
    for leak in leaks:
        out = Redactor(rules=rules).clean(leak.text)
        failures += [f"{leak.id}: leaked {s!r}" for s in leak.secrets if s in out]
        failures += [
            f"{leak.id}: no [REDACTED:{k}]" for k in leak.kinds if f"[REDACTED:{k}]" not in out
        ]
        if not MARKER.search(out):
            failures.append(f"{leak.id}: no marker at all")
    return failures


def test_corpus_is_big_enough_and_well_formed():
    assert len(LEAKS) >= 60
    assert len(CLEAN) >= 30
    assert len({leak.id for leak in LEAKS}) == len(LEAKS)
    assert len(set(CLEAN)) == len(CLEAN)
    for leak in LEAKS:
        assert leak.secrets, leak.id
        assert all(s in leak.text for s in leak.secrets), leak.id


@pytest.mark.parametrize("leak", LEAKS, ids=lambda leak: leak.id)
def test_no_secret_survives(leak: Leak):
    redactor = Redactor()
    out = redactor.clean(leak.text)
    assert corpus_failures(leaks=[leak]) == []
    assert redactor.total >= len(MARKER.findall(out)) >= 1
    assert set(leak.kinds) <= set(redactor.counts)


@pytest.mark.parametrize("leak", LEAKS, ids=lambda leak: leak.id)
def test_cleaning_is_idempotent(leak: Leak):
    once = Redactor().clean(leak.text)
    again = Redactor()
    assert again.clean(once) == once
    assert again.total == 0


@pytest.mark.parametrize("line", CLEAN)
def test_clean_line_comes_through_unchanged(line: str):
    redactor = Redactor()
    assert redactor.clean(line) == line
    assert redactor.total == 0


def test_every_rule_kind_is_in_the_corpus():
    kinds = [rule.kind for rule in RULES]
    assert len(kinds) == len(set(kinds))
    assert set(kinds) - {k for leak in LEAKS for k in leak.kinds} == set()


@pytest.mark.parametrize("dropped", RULES, ids=lambda rule: rule.kind)
def test_disabling_any_rule_fails_the_corpus(dropped: Rule):
    """A deliberately leaky change (one rule gone) makes the corpus fail.

    It fails with a leak, or, for the rule a generic one backs up, with a missing typed marker.
    """
    failures = corpus_failures(rules=tuple(r for r in RULES if r is not dropped))
    assert failures
    if dropped.kind not in KIND_ONLY:
        assert any(": leaked " in f for f in failures), failures


def test_the_corpus_passes_with_every_rule():
    assert corpus_failures() == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "exit 1: postgres://svc:hunter2@db:5432/x",
            "exit 1: postgres://svc:[REDACTED:url-password]@db:5432/x",
        ),
        ("PASSWORD=hunter2 EPOCHS=3", "PASSWORD=[REDACTED:secret-value] EPOCHS=3"),
        ('{"apiKey": "abc123", "n": 1}', '{"apiKey": "[REDACTED:secret-value]", "n": 1}'),
        ("--hf-token abc123 --epochs 3", "--hf-token [REDACTED:secret-value] --epochs 3"),
        ("Authorization: Basic dXNlcjpwYXNz", "Authorization: Basic [REDACTED:authorization]"),
        (
            "POST https://hooks.slack.com/services/T1/B2/xyz ok",
            "POST https://hooks.slack.com/services/[REDACTED:slack-webhook] ok",
        ),
        (
            "https://s.blob.core.windows.net/c?sv=2022-11-02&sig=abc%3D",
            "https://s.blob.core.windows.net/c?sv=2022-11-02&sig=[REDACTED:url-token]",
        ),
        (
            "AccountName=ml;AccountKey=Zm9vYmFy==;EndpointSuffix=core.windows.net",
            "AccountName=ml;AccountKey=[REDACTED:azure-storage-key];EndpointSuffix=core.windows.net",
        ),
    ],
)
def test_context_stays_readable(text: str, expected: str):
    assert Redactor().clean(text) == expected


def test_counts_are_per_kind_and_accumulate():
    redactor = Redactor()
    redactor.clean("PASSWORD=a1b2c3 TOKEN=d4e5f6 AKIA5KY4Y5LOZRNZGX8L")
    redactor.clean("postgres://u:p4ss@h/db")
    assert redactor.counts == {"secret-value": 2, "aws-access-key-id": 1, "url-password": 1}
    assert redactor.total == 4


def test_empty_and_none():
    assert Redactor().clean("") == ""
    assert Redactor().clean(None) == ""
