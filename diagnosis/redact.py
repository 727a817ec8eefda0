"""The redaction stage: masks credentials in upstream text before it can enter a report.

Every upstream string the engine quotes goes through `Redactor.clean` first. Replacements
are visible and typed (`[REDACTED:jwt]`) so a reader knows something was there, and the
redactor counts what it masked so the report can say so. Only the secret is replaced: the
key name, the URL host and the surrounding sentence stay readable. Cleaning is idempotent:
markers are never re-redacted or counted again.

`RULES` is ordered, specific shapes first (a `ghp_` token is typed `github-token` before the
generic `KEY=value` rule sees it). Patterns are linear: no nested ambiguous quantifiers, and
possessive runs where a run could otherwise be re-scanned. The corpus in
`tests/diagnosis/redaction/` proves every rule catches something no other rule does.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["MARKER", "RULES", "Redactor", "Rule", "quote", "redact", "sensitive_key", "shorten"]

MARKER = re.compile(r"\[REDACTED:[a-z0-9-]+\]")
_SECRET_GROUPS = ("s", "s2", "s3", "s4")

# A value as it follows `key=` / `key:` / `--key `: escaped-quoted, quoted, or bare. A bare
# value stops at whitespace, and at quotes/commas/brackets only when they end the value.
_SOFT = r"\"'`,;)}\]"
_VALUE = (
    r"(?:\\\"(?P<s>(?:[^\"\\\n]|\\[^\"\n])*+)\\\""
    r"|\"(?P<s2>(?:[^\"\\\n]|\\.)*+)\"(?=[\s,;:)}\]\\]|$)"
    r"|'(?P<s3>[^'\n]*+)'(?=[\s,;:)}\]\\]|$)"
    rf"|(?P<s4>\S(?:[^\s{_SOFT}]|[{_SOFT}]++(?=[^\s{_SOFT}]))*+))"
)
_KEY_HINTS = "pass pwd secret token key auth session cookie credential jwt bearer"
_KEY_HINT = rf"(?i:{'|'.join(_KEY_HINTS.split())})"
_SEP = r"(?P<close>\\?[\"']?)(?P<sep>[ \t]*[:=][ \t]*|[ \t]+)"


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_SUBSTRINGS = _words("password passwd passphrase secret credential cookie apikey accesskey "
                     "privatekey sessionid authkey")  # fmt: skip
_WORDS = _words("token pwd pass auth authorization session jwt oauth")
_NOT_SECRET_LAST = _words(
    "name names ref refs file files path paths dir mount volume namespace type kind mode method "
    "provider url uri endpoint host server ttl expiry expires expiration timeout duration length "
    "size limit count version format enabled required secrets tokens"
)
_FLAG_FIRST = _words("no use enable disable skip allow require with without")
_KEPT_VALUES = _words(
    "true false yes no on off null none nil empty required optional unset redacted hidden masked "
    "unauthorized forbidden denied invalid expired missing unexpected failed error"
)
_SCHEMES = _words("bearer basic token digest negotiate apikey")
_ENCODED_HINTS = _words('"auths" "auth" password passwd secret token private_key -----begin apikey')
_AFTER_MARKER = frozenset(" \t\r\n@/:?&#\"'\\;,)]}>")
_PROSE_VALUE = re.compile(r"[a-z]+(?:'[a-z]+)?")
_GOES_ON = re.compile(r" [A-Za-z]")
_UUID = re.compile(r"[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}")
_MIN_OPAQUE_TOKEN = 20  # a `bearer <word>` shorter than this, letters only, is prose
_MIN_DISTINCT = 12  # distinct characters a blob needs to count as high-entropy


def sensitive_key(name: str, *, flag: bool = False) -> bool:
    """Whether a key (`DB_PASSWORD`, `apiKey`, `--hf-token`) names a credential.

    Words are compared, not substrings, so `tokenizer`, `max_new_tokens`, `author` and
    `secretName` (a reference, not a value) are not sensitive. `flag` marks the
    `--key value` form, where `--no-auth`-style switches take no value.
    """
    words = [w.lower() for w in _CAMEL.findall(name)]
    if not words or words[-1] in _NOT_SECRET_LAST or (flag and words[0] in _FLAG_FIRST):
        return False
    joined = "".join(words)
    return any(s in joined for s in _SUBSTRINGS) or any(
        w in _WORDS or w.endswith("token") for w in words
    )


def _span(m: re.Match[str]) -> tuple[int, int]:
    for name in _SECRET_GROUPS:
        if name in m.re.groupindex and m.start(name) >= 0:
            return m.span(name)
    return m.span()


def _secret(m: re.Match[str]) -> str:
    start, end = _span(m)
    return m.string[start:end]


def _plain_value(m: re.Match[str]) -> bool:
    """A `key: value` whose value is data, not a credential (`KEY=value` always is a value).

    The colon form is where prose lives: `refused the credentials: Unauthorized`, an auth
    scheme (`Authorization: Basic <credential>`: the credential has its own rule), or
    containerd's `failed to fetch anonymous token: unexpected status: 401`, an unquoted key
    mid-line followed by a lowercase word, and the sentence goes on.
    """
    value, text = _secret(m), m.string
    if ":" not in m.group("sep"):
        return False
    if value.lower() in _KEPT_VALUES or (
        value.lower() in _SCHEMES and text[m.end() : m.end() + 1].isspace()
    ):
        return True
    if m.group("close") or not _PROSE_VALUE.fullmatch(value):
        return False
    key_at = m.start("key")
    line_start = text.rfind("\n", 0, key_at) + 1
    if not text[line_start:key_at].strip(" \t-#"):
        return False  # YAML: the key starts its line
    return _GOES_ON.match(text, m.end()) is not None


def _key_value(m: re.Match[str]) -> bool:
    key = m.group("key")
    spaced = not m.group("sep").strip()
    if spaced and (not key.startswith("-") or m.group("close") or _secret(m).startswith("-")):
        return False
    if m.group("sep") == ":" and not m.group("close") and "_" not in key:
        # `secret-model:2`, `auth-proxy:443` are images and hosts, not keys; names with an
        # underscore (`WANDB_API_KEY:…`, `api_key:…`) never are.
        key = "".join(_CAMEL.findall(key)[-1:])
    return sensitive_key(key, flag=spaced) and not _plain_value(m)


def _not_uid_gid(m: re.Match[str]) -> bool:
    """`docker run -u 1000:1000` is a user and group id, not a password."""
    return not m.group("s").isdigit()


def _env_pair(m: re.Match[str]) -> bool:
    return sensitive_key(m.group("name"))


def _header(m: re.Match[str]) -> bool:
    return not _plain_value(m)


def _bearer(m: re.Match[str]) -> bool:
    token = _secret(m)
    return len(token) >= _MIN_OPAQUE_TOKEN or not token.isalpha()


def _encoded(m: re.Match[str]) -> bool:
    """A base64 blob whose decoded text carries credentials (`.dockerconfigjson`, a Secret)."""
    blob = _secret(m).rstrip("=").replace("-", "+").replace("_", "/")
    try:
        decoded = base64.b64decode(blob + "=" * (-len(blob) % 4)).decode("utf-8")
    except (binascii.Error, ValueError):
        return False
    return any(hint in decoded.lower() for hint in _ENCODED_HINTS)


def _high_entropy(m: re.Match[str]) -> bool:
    blob = _secret(m)
    return (
        any(c.isdigit() for c in blob)
        and any(c.isalpha() for c in blob)
        and len(set(blob)) >= _MIN_DISTINCT
        and not _UUID.fullmatch(blob)
    )


@dataclass(frozen=True)
class Rule:
    """One secret shape: the marker `kind`, the pattern, and an optional second opinion.

    The masked span is the first participating group named `s`, `s2`, `s3` or `s4`, else the
    whole match; everything else the pattern matched (key, scheme, host) stays visible.
    """

    kind: str
    pattern: re.Pattern[str]
    accept: Callable[[re.Match[str]], bool] | None = None
    hints: tuple[str, ...] = ()  # lowercase; the rule only runs if the text holds one of these


# Cheap pre-checks: a rule whose every match contains one of these (lowercased) is skipped on
# text that holds none, so a clean 64 KB log costs a few substring searches per rule.
_HINTS = {
    "private-key": "private key", "jwt": "eyj", "github-token": "gh github_pat_",
    "gitlab-token": "gl", "huggingface-token": "hf_", "openai-key": "sk-", "ngc-key": "nvapi-",
    "slack-token": "xox xapp-",
    "slack-webhook": "hooks.slack.com/", "google-api-key": "aiza", "aws-access-key-id": "akia asia",
    "aws-secret-key": "akia asia secret", "azure-storage-key": "accountkey sharedaccess",
    "url-password": "://", "url-token": "? & ; # sig", "ngc-legacy-key": "ngc",
    "docker-auth": "auth", "authorization": "authorization", "cookie": "cookie",
    "bearer-token": "bearer", "cli-password": "login sshpass mysql", "env-secret": "value",
    "basic-auth-flag": "-u --user --proxy-user --http-user",
    "secret-value": _KEY_HINTS,
    "secret-blob": "pass secret token key credential auth session cookie",
}  # fmt: skip


def _rule(kind: str, pattern: str, accept: Callable[[re.Match[str]], bool] | None = None) -> Rule:
    flags = re.DOTALL if kind == "private-key" else 0
    return Rule(kind, re.compile(pattern, flags), accept, tuple(_HINTS.get(kind, "").split()))


_PEM_END = r"-----END[A-Z ]*PRIVATE KEY[A-Z ]*-----"
_B64 = r"A-Za-z0-9+/"
# fmt: off
RULES: tuple[Rule, ...] = (
    # No possessive quantifiers here: CPython before 3.11.5 mishandles them with DOTALL
    # alternations, and this rule must hold on every 3.11 (Debian 12 ships 3.11.2).
    _rule("private-key", r"-----BEGIN[A-Z ]*PRIVATE KEY[A-Z ]*-----"
          rf"(?:[^-]|-(?!----))*(?:{_PEM_END})?"
          rf"|(?<![{_B64}=\\\s])[{_B64}=\\\s]{{40,}}{_PEM_END}"),
    _rule("jwt", r"\beyJ[\w-]{6,}+\.[\w-]{6,}+(?:\.[\w-]*+)?"),
    _rule("github-token", r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}+|github_pat_\w{40,}+)"),
    _rule("gitlab-token", r"\bgl(?:pat|dt|rt|ptt|cbt|imt|soat|ft|agent)-[\w-]{20,}+"),
    _rule("huggingface-token", r"\bhf_[A-Za-z0-9]{30,}+"),
    _rule("openai-key", r"\bsk-(?:proj-|svcacct-|admin-|ant-[a-z]+\d\d-)?"
          r"(?=[\w-]*[A-Z])(?=[\w-]*\d)[\w-]{20,}+"),
    _rule("ngc-key", r"\bnvapi-[\w-]{20,}+"),
    _rule("slack-token", r"\b(?:xox[abposre]-[A-Za-z0-9-]{10,}+|xapp-\d-[A-Za-z0-9-]{10,}+)"),
    _rule("slack-webhook", r"(?<=hooks\.slack\.com/)"
          r"(?:services|workflows|triggers|commands|actions)/(?P<s>[\w/%.-]+)"),
    _rule("google-api-key", r"\bAIza[\w-]{35}(?![\w-])"),
    _rule("aws-secret-key", r"(?:(?:AKIA|ASIA)[0-9A-Z]{16}[ \t]*[:,|;][ \t]*"
          r"|(?i:aws_?secret_?(?:access_?)?key|secret_?access_?key)\\?[\"']?"
          rf"(?:[ \t]*[:=][ \t]*|[ \t]+)\\?[\"']?)(?P<s>[{_B64}]{{40}})(?![{_B64}=])"),
    _rule("aws-access-key-id", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    _rule("azure-storage-key",
          r"(?i)\b(?:AccountKey|SharedAccessKey|SharedAccessSignature)=(?P<s>[^;\s\"']+)"),
    # The user may itself contain `@` (`user@example.com:pw@host`); the password ends at
    # the last `@` before the host.
    _rule("url-password", r"(?<=://)[^/\s:\"'<>]*+:(?P<s>[^/\s\"'<>]+)@"),
    _rule("url-token", r"(?i)(?:[?&;#](?:key|code|auth|sas|token|access_token|id_token"
          r"|refresh_token|auth_token|api_key|apikey|secret|client_secret|password|pwd)"
          r"|(?:[?&;#]|(?<![\w.%-]))(?:sig|signature|x-amz-signature|x-amz-credential"
          r"|x-amz-security-token|x-goog-signature|x-goog-credential))=(?P<s>[^&\s\"'#<>]+)"),
    _rule("ngc-legacy-key", rf"(?i:ngc)[^\n]{{0,48}}?(?<![{_B64}])"
          rf"(?P<s>[{_B64}]{{84,}}+={{0,2}})(?![{_B64}=])"),
    _rule("docker-auth",
          rf"(?P<q>\\?\")auth(?P=q)[ \t]*:[ \t]*(?P=q)(?P<s>[{_B64}]{{4,}}+={{0,2}})(?P=q)"),
    _rule("encoded-secret",
          rf"(?<![{_B64}=_-])(?P<s>[{_B64}_-]{{24,}}+={{0,2}})(?![{_B64}=_-])", _encoded),
    _rule("authorization", r"(?i)(?P<key>authorization)(?<![a-mo-qs-z0-9_]authorization)"
          r"(?P<close>\\?[\"']?)(?P<sep>[ \t]*[:=][ \t]*)\\?[\"']?"
          r"(?:(?:bearer|basic|token|apikey|negotiate|key)[ \t]+)?"
          r"(?P<s>(?:digest|aws4-hmac-sha256)[ \t][^\r\n\"'\\]*+|[^\s\"',;\\]++)", _header),
    _rule("cookie", r"(?i)(?P<key>cookie)(?<!\wcookie)(?P<close>\\?[\"']?)(?P<sep>[ \t]*:[ \t]*)"
          r"\\?[\"']?(?P<s>[^\r\n\"\\]+)", _header),
    _rule("bearer-token", r"(?i)bearer(?<!\wbearer)[ \t]+(?P<s>[\w.~+/=-]{8,}+)", _bearer),
    _rule("cli-password", r"(?i)(?:\b(?:docker|podman|nerdctl|buildah|skopeo|oras|crane|regctl"
          r"|helm[ \t]+registry)[ \t]+login|\bsshpass)\b[^\n]{0,160}?[ \t](?:-p|--password)"
          r"(?:[ \t]+|=)(?:\"(?P<s>[^\"\n]*)\"|'(?P<s2>[^'\n]*)'|(?P<s3>[^\s\"']+))"
          r"|\bmysql\w*\b[^\n]{0,160}?[ \t]-p(?P<s4>[^\s\"'-][^\s\"']*+)"),
    _rule("basic-auth-flag", r"(?<![\w-])(?:-u|--user|--proxy-user|--http-user)(?:[ \t]+|=)?"
          r"[\"']?[^\s:\"']+:(?P<s>[^\s\"']+)", _not_uid_gid),
    _rule("env-secret", r"(?i:\bname)\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?(?P<name>[\w.-]++)"
          r"\\?[\"']?[ \t]*,?[ \t]*(?:\r?\n[ \t-]*)?\\?[\"']?(?i:value)\\?[\"']?[ \t]*[:=][ \t]*"
          + _VALUE, _env_pair),
    _rule("secret-value",
          rf"(?<![\w.-])(?=-|[\w.-]++\\?[\"']?[ \t]*[:=])(?P<key>(?=[\w.-]*?{_KEY_HINT})[\w.-]++)"
          rf"{_SEP}{_VALUE}", _key_value),
    _rule("secret-blob", r"(?i)\b(?:password|passwd|passphrase|secret|token|api[_ -]?key"
          r"|access[_ -]?key|private[_ -]?key|credentials?|auth|session|cookie)\b"
          rf"(?:[^\w\n]{{1,4}}+\w++){{0,2}}?[^\w\n]{{1,4}}+(?P<s>[{_B64}_-]{{32,}}+={{0,2}})"
          rf"(?![{_B64}=_-])", _high_entropy),
)
# fmt: on


@dataclass
class Redactor:
    """Masks secrets in text and counts what it masked (per kind)."""

    counts: dict[str, int] = field(default_factory=dict)
    rules: tuple[Rule, ...] = field(default=RULES, repr=False)

    @property
    def total(self) -> int:
        """How many values were masked so far."""
        return sum(self.counts.values())

    def clean(self, text: str | None) -> str:
        """Return `text` with every recognised secret replaced by `[REDACTED:<kind>]`."""
        if not text:
            return ""
        lowered = text.lower()
        for rule in self.rules:
            if not rule.hints or any(hint in lowered for hint in rule.hints):
                cleaned = self._apply(rule, text)
                if cleaned is not text:  # markers carry words (`key`) later hints look for
                    text, lowered = cleaned, cleaned.lower()
        return text

    def _apply(self, rule: Rule, text: str) -> str:
        parts: list[str] = []
        done = pos = 0
        while (m := rule.pattern.search(text, pos)) is not None:
            start, end = _span(m)
            if start == end or _masked(text, start, end) or (rule.accept and not rule.accept(m)):
                pos = start if start > m.start() else m.start() + 1  # look inside the value
                continue
            parts += (text[done:start], f"[REDACTED:{rule.kind}]")
            self.counts[rule.kind] = self.counts.get(rule.kind, 0) + 1
            done = pos = end
        return "".join((*parts, text[done:])) if parts else text


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
    return not rest or rest.lower() in _SCHEMES


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
