"""A match's secret value: where it is, and the checks that judge it by its form alone."""

from __future__ import annotations

import base64
import binascii
import re

__all__ = [
    "bare_aws_secret",
    "basic_credential",
    "bearer",
    "cli_token",
    "encoded",
    "high_entropy",
    "ngc_legacy",
    "secret_span",
    "secret_value",
    "token_like",
    "trailing_punctuation_end",
]

_SECRET_GROUPS = ("s", "s2", "s3", "s4", "s5", "s6", "s7")
_CLOSERS = {")": "(", "]": "[", "}": "{"}


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


def secret_span(m: re.Match[str]) -> tuple[int, int]:
    """What a match masks: its first participating secret group, else all of it."""
    for name in _SECRET_GROUPS:
        if name in m.re.groupindex and m.start(name) >= 0:
            return m.span(name)
    return m.span()


def secret_value(m: re.Match[str]) -> str:
    """The value a rule would mask, without the sentence punctuation after it."""
    start, end = secret_span(m)
    return m.string[start : trailing_punctuation_end(m.string, start, end)]


def trailing_punctuation_end(text: str, start: int, end: int) -> int:
    """`end` moved back over sentence punctuation a bare value ends with (`token abc.`).

    Only where the value ends a word (whitespace or the end follows); a closing bracket goes
    only when the value did not open it.
    """
    if end < len(text) and not text[end].isspace():
        return end
    while end > start:
        last = text[end - 1]
        opener = _CLOSERS.get(last)
        if last in ".,:;" or (
            opener and text.count(opener, start, end) < text.count(last, start, end)
        ):
            end -= 1
        else:
            break
    return end


_ENCODED_HINTS = _words('"auths" "auth" password passwd secret token private_key -----begin apikey')
_UUID = re.compile(r"[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}")
_MIN_OPAQUE_TOKEN = 20  # a `bearer <word>` shorter than this, letters only, is prose
_MIN_DISTINCT = 12  # distinct characters a blob needs to count as high-entropy
_MIN_BLOB = 32  # shorter blobs next to a key word must also mix upper and lower case
_MIN_DISTINCT_AWS = 20
_HOSTNAME = re.compile(r"[a-z0-9-]+(?:\.[a-z0-9-]+)+(?::\d+)?(?:/\S*)?")
_NGC_DECODED = re.compile(r"[a-z0-9]{26}:[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}")


def bearer(m: re.Match[str]) -> bool:
    """`bearer <token>` where the token is long or not a plain word."""
    token = secret_value(m)
    return len(token) >= _MIN_OPAQUE_TOKEN or not token.isalpha()


def basic_credential(m: re.Match[str]) -> bool:
    """Base64 of `user:password`, as HTTP Basic authentication sends it."""
    try:
        decoded = base64.b64decode(secret_value(m), validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return False
    return ":" in decoded and decoded.isprintable()


def encoded(m: re.Match[str]) -> bool:
    """A base64 blob whose decoded text carries credentials (`.dockerconfigjson`, a Secret)."""
    blob = secret_value(m).rstrip("=").replace("-", "+").replace("_", "/")
    try:
        decoded = base64.b64decode(blob + "=" * (-len(blob) % 4)).decode("utf-8")
    except (binascii.Error, ValueError):
        return False
    return any(hint in decoded.lower() for hint in _ENCODED_HINTS)


def high_entropy(m: re.Match[str]) -> bool:
    """A random-looking blob next to a key word: letters, digits, many distinct characters."""
    blob = secret_value(m)
    mixed = any(c.isupper() for c in blob) and any(c.islower() for c in blob)
    weak = "weak" in m.re.groupindex and m.group("weak") is not None
    return (
        any(c.isdigit() for c in blob)
        and any(c.isalpha() for c in blob)
        and len(set(blob)) >= _MIN_DISTINCT
        # after a bare `key` (a cache key, a commit), only a mixed-case blob is a secret
        and ((len(blob) >= _MIN_BLOB and not weak) or mixed)
        and not _UUID.fullmatch(blob)
    )


def token_like(value: str) -> bool:
    """A machine-made credential: long, with letters and digits, many distinct characters."""
    return (
        len(value) >= _MIN_OPAQUE_TOKEN - 8
        and any(c.isdigit() for c in value)
        and any(c.isalpha() for c in value)
        and len(set(value)) >= _MIN_DISTINCT - 4
    )


def cli_token(m: re.Match[str]) -> bool:
    """`login <token>`: a token, not a registry host or a request id."""
    token = secret_value(m)
    if _HOSTNAME.fullmatch(token) or _UUID.fullmatch(token):
        return False  # `docker login registry.acme.io`, `failed login <request id>`
    return any(c.isdigit() for c in token) and len(set(token)) >= _MIN_DISTINCT - 2


def bare_aws_secret(m: re.Match[str]) -> bool:
    """A bare 40-character AWS secret key: mixed case, digits, random; not a path."""
    key = secret_value(m)
    return (
        any(c.isupper() for c in key)
        and any(c.islower() for c in key)
        and any(c.isdigit() for c in key)
        and len(set(key)) >= _MIN_DISTINCT_AWS
        and key.count("/") <= 2  # noqa: PLR2004
        and not key.startswith("/")
        and "//" not in key
    )


def ngc_legacy(m: re.Match[str]) -> bool:
    """Named after `ngc`, or base64 of the legacy key's own shape (`<26 chars>:<uuid>`)."""
    if m.group("ngc"):
        return True
    blob = secret_value(m)
    try:
        decoded = base64.b64decode(blob + "=" * (-len(blob) % 4)).decode("ascii")
    except (binascii.Error, ValueError):
        return False
    return _NGC_DECODED.fullmatch(decoded) is not None
