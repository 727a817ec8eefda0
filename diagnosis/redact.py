"""The redaction stage: masks credentials in upstream text before it can enter a report.

Every upstream string the engine quotes goes through `Redactor.clean` first. Replacements
are visible and typed (`[REDACTED:jwt]`) so a reader knows something was there, and the
redactor counts what it masked so the report can say so.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["Redactor", "shorten"]

_SENSITIVE_KEY = (
    r"(?:[\w.-]*?(?:password|passwd|pwd|secret|token|api[_-]?key|apikey|access[_-]?key"
    r"|private[_-]?key|credentials?|auth|session|cookie)[\w.-]*)"
)

# (kind, pattern, group to replace; 0 = whole match). First pattern wins on overlap by order.
_RULES: tuple[tuple[str, re.Pattern[str], int], ...] = tuple(
    (kind, re.compile(pattern, flags), group)
    for kind, pattern, flags, group in (
        (
            "private-key",
            r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)",
            re.DOTALL,
            0,
        ),
        ("authorization", r"(?i)(?<=authorization:)\s*(?:bearer|basic)\s+[^\s\"',;]+", 0, 0),
        ("bearer-token", r"(?i)(?<=\bbearer\s)[A-Za-z0-9._~+/=-]{8,}", 0, 0),
        ("jwt", r"\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*", 0, 0),
        ("url-credentials", r"(?i)(?<=://)[^/\s:@\"']+:[^/\s@\"']+(?=@)", 0, 0),
        (
            "url-token",
            r"(?i)(?<=[?&])(?:token|access_token|sig|signature|x-amz-signature|x-amz-credential"
            r"|key|api_key|apikey|secret|password)=[^&\s\"'#]+",
            0,
            0,
        ),
        ("aws-access-key-id", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b", 0, 0),
        ("slack-token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}", 0, 0),
        ("slack-app-token", r"\bxapp-[A-Za-z0-9-]{10,}", 0, 0),
        ("slack-webhook", r"https://hooks\.slack\.com/services/[A-Za-z0-9/_-]+", 0, 0),
        ("github-token", r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})", 0, 0),
        ("gitlab-token", r"\bglpat-[A-Za-z0-9_-]{20,}", 0, 0),
        ("huggingface-token", r"\bhf_[A-Za-z0-9]{30,}", 0, 0),
        ("openai-key", r"\bsk-(?:proj-)?[A-Za-z0-9_-]{20,}", 0, 0),
        ("ngc-key", r"\bnvapi-[A-Za-z0-9_-]{20,}", 0, 0),
        (
            "secret-value",
            # KEY=value, KEY: value, "key": "value", --key value, --key=value
            rf"(?i)(?:(?<![\w-]){_SENSITIVE_KEY}[\"']?\s*[:=]\s*|(?<![\w-])--{_SENSITIVE_KEY}\s+)"
            r"[\"']?([^\s\"',;}]{3,})",
            0,
            1,
        ),
    )
)


@dataclass
class Redactor:
    """Masks secrets in text and counts what it masked (per kind)."""

    counts: dict[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        """How many values were masked so far."""
        return sum(self.counts.values())

    def clean(self, text: str | None) -> str:
        """Return `text` with every recognised secret replaced by `[REDACTED:<kind>]`."""
        if not text:
            return ""
        for kind, pattern, group in _RULES:
            text = pattern.sub(self._replacer(kind, group), text)
        return text

    def _replacer(self, kind: str, group: int) -> Callable[[re.Match[str]], str]:
        marker = f"[REDACTED:{kind}]"

        def replace(match: re.Match[str]) -> str:
            value = match.group(group)
            if value is None or value.startswith("[REDACTED:") or "[REDACTED:" in value:
                return match.group(0)
            self.counts[kind] = self.counts.get(kind, 0) + 1
            if group == 0:
                return marker
            start, end = match.span(group)
            offset = match.start(0)
            whole = match.group(0)
            return whole[: start - offset] + marker + whole[end - offset :]

        return replace


def shorten(text: str, limit: int = 240) -> str:
    """Collapse whitespace; cut the middle out of long text, keeping its start and its end.

    Errors put the cause last (containerd: `failed to pull …: 401 Unauthorized`), so the
    tail is worth more than the middle.
    """
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    head = limit * 2 // 5
    tail = limit - head - 3
    return f"{flat[:head].rstrip()} … {flat[-tail:].lstrip()}"
