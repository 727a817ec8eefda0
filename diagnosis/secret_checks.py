"""What the redaction rules check around a value: key names, prose, the text beside it.

Each rule's pattern finds a candidate; the check here says whether it is a secret (`cached`
after `token:` is not, `hunter2` after `the password is` is). Checks on a value's form alone
(entropy, encoding, token shape) are in `secret_values`.
"""

from __future__ import annotations

import re

from diagnosis.secret_values import secret_value, token_like, trailing_punctuation_end

__all__ = [
    "SCHEMES",
    "authorization",
    "credential_file",
    "element",
    "env_pair",
    "header",
    "key_value",
    "netrc",
    "not_uid_gid",
    "sensitive_key",
    "stated",
]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: `('alice', 'pw')`: a credential pair, whose second part the auth-tuple rule masks.
_QUOTED_PAIR = re.compile(r"[(\[][ \t]*([\"'])[^\"'\n]*\1[ \t]*,[ \t]*([\"'])[^\"'\n]+\2")
_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_SUBSTRINGS = _words("password passwd passphrase secret credential cookie apikey accesskey "
                     "privatekey sessionid authkey encryptionkey masterkey signingkey hmackey "
                     "appkey licensekey storagekey accountkey deploykey kagglekey "
                     "subscriptionkey")  # fmt: skip
_WORDS = _words("token pwd pw pass auth authorization session jwt oauth")
_NOT_SECRET_LAST = _words(
    "name names ref refs file files path paths dir mount volume namespace type kind mode method "
    "provider url uri endpoint host server ttl expiry expires expiration timeout duration length "
    "size limit count version format enabled required secrets tokens stdin prompt helper"
)
_LITERALS = _words("none null nil true false")
_FLAG_FIRST = _words("no use enable disable skip allow require with without")
_KEPT_VALUES = _words(
    "true false yes no on off null none nil empty required optional unset redacted hidden masked "
    "unauthorized forbidden denied invalid expired missing unexpected failed error cached saved "
    "stored loaded found valid set provided configured present absent refreshed rotated revoked "
    "get post put head delete patch"  # Go's `failed to fetch token: Get "https://…"`
)
# Words that follow `password is` / `PASSWORD` in prose and messages: never the secret itself.
_MIN_PROSE_PASSWORD = 6
_PROSE_WORDS = _KEPT_VALUES | _words(
    "is was are be been being not now also still already too very the a an this that it its "
    "of for from in on at to by with without and or but if as must should cannot can could will "
    "would may might has have had does did do incorrect wrong correct weak strong short long "
    "blank needed mandatory given used changed reset stale environment variable var file field "
    "value key flag option argument parameter authentication authorization login user username "
    "length policy check verification mismatch match matches accepted rejected generated created "
    "updated deleted removed expires expiring expire has been please enter entered specified"
)
#: Words a sentence goes on from after `token:` (`token: could not reach …`); never the first
#: word of a passphrase (`password: correct horse battery staple` stays masked).
_SENTENCE_VERBS = _words(
    "is was are be been not could cannot can will would may might must should has have had "
    "does did do also still already now"
)
#: Whether lowercase words after a key (in mid-line, or quoted after `password is`) are a
#: sentence, an error's text (`failed to fetch token: unexpected status`, `read db password:
#: permission denied`), or a passphrase (`db password: correct horse battery staple`). A
#: sentence holds a function word no passphrase list holds (none of these is in EFF's 7,776
#: diceware words), or starts with a state or a word Go and POSIX errors start with (a few
#: of those are diceware words: 0.3% of passphrases start with one).
_GLUE = _words(
    "is was are be been being not no nor the a an to of for in into on at by with without and "
    "or but if as than then so because due while when has have does did do can will would may "
    "might must should it its this can't couldn't doesn't don't didn't isn't wasn't won't"
)
_SENTENCE_STARTS = (
    _GLUE
    | _SENTENCE_VERBS
    | _KEPT_VALUES
    | _words(
        "from such that unexpected unknown unable invalid illegal malformed bad permission "
        "connection context deadline exceeded refused reset timeout timed dial lookup open read "
        "write status request response server certificate json yaml rpc tls http directory "
        "exist exists"
    )
)
_PLACEHOLDER = re.compile(
    r"\*+|x{3,}|X{3,}|\.{3,}|<[\w .-]*>|\$\{?[A-Z_][A-Z0-9_]*\}?|\{\{[^}]*\}\}|\[[\w .-]*\]"
)
#: Source code where a value would be (a traceback quotes its line): a call or an index on a
#: dotted name (`os.environ["HF_TOKEN"]`, `client.get(name=n)`), on a bare name only with no
#: argument or a quoted one (`getpass()`, `getenv("TOKEN")`: `hunter2(!)` is a password), or
#: a shell's command substitution (`$(cat /run/secrets/pw)`); what it yields is not in the text.
_CODE = re.compile(
    r"(?:(?:[A-Za-z_]\w*+\.)++[A-Za-z_]\w*+(?:\([ \t]*+(?:[A-Za-z_\"'][^()\n]*+)?\)"
    r"|\[[^\[\]\n]*+\])|[A-Za-z_]\w*+(?:\([ \t]*+(?:[\"'][^()\n]*+)?\)|\[[\"'][^\[\]\n]*+\])"
    r"|\$\([^()\n]*+\))(?![^\s),;])"
)
SCHEMES = _words("bearer basic token digest negotiate apikey")
_PROSE_VALUE = re.compile(r"[a-z]+(?:'[a-z]+)?")
_GOES_ON = re.compile(r" [A-Za-z]")
_WORD_PUNCTUATION = ".,:;!?()[]{}\"'`"
_BLANK = re.compile(r"[ \t]")
_MIN_WORD_SECRET = 4  # a word with fewer letters and digits after `password is` is prose


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


def _first_word(m: re.Match[str]) -> tuple[str, int]:
    """The word a bare value starts with, and where it ends; a quoted value is one word.

    A bare value after `key: ` runs on to the end of its line (a passphrase); whether it is
    prose is read from its first word (`token: could not reach the server`).
    """
    if "s4" not in m.re.groupindex or m.start("s4") < 0:
        return secret_value(m), m.end()
    start, end = m.span("s4")
    space = _BLANK.search(m.string, start, end)
    end = space.start() if space else end
    return m.string[start : trailing_punctuation_end(m.string, start, end)], end


def _plain_value(m: re.Match[str], value: str, value_end: int) -> bool:
    """A `key: value` whose value is data, not a credential (`KEY=value` always is a value).

    The colon form is where prose lives: `refused the credentials: Unauthorized`, an auth
    scheme (`Authorization: Basic <credential>`: the credential has its own rule), or
    containerd's `failed to fetch anonymous token: unexpected status: 401`, an unquoted key
    mid-line followed by lowercase words that read as a sentence. `value` is the word
    judged, ending at `value_end`.
    """
    text = m.string
    if ":" not in m.group("sep"):
        return False
    if value.lower() in _KEPT_VALUES or (
        value.lower() in SCHEMES and text[value_end : value_end + 1].isspace()
    ):
        return True
    if m.group("close") or not _PROSE_VALUE.fullmatch(value):
        return False
    key_at = m.start("key")
    line_start = text.rfind("\n", 0, key_at) + 1
    if not text[line_start:key_at].strip(" \t-#"):
        # YAML: the key starts its line, unless a word of prose starts a sentence that goes on
        # (`token: could not reach the server`, a log line of ours or a client's)
        goes_on = _GOES_ON.match(text, value_end) is not None
        return goes_on and value.lower() in _SENTENCE_VERBS
    # Mid-line, an error's text (`fetch token: unexpected status`) reads as a sentence; a
    # passphrase (`db password: correct horse battery staple`) does not.
    return _sentence(secret_value(m))


def _sentence(value: str) -> bool:
    """Whether words read as a sentence (`_GLUE`, `_SENTENCE_STARTS`), not as a passphrase."""
    words = [w.strip(_WORD_PUNCTUATION).lower() for w in value.split()]
    return bool(words) and (words[0] in _SENTENCE_STARTS or any(w in _GLUE for w in words))


def _placeholder(value: str) -> bool:
    """`********`, `<hidden>`, `${DB_PASSWORD}`, `{{ .Values.token }}`: no secret to mask."""
    return _PLACEHOLDER.fullmatch(value) is not None


def key_value(m: re.Match[str]) -> bool:
    """`KEY=value`, `key: value`, `--key value`: a credential key with a credential value."""
    key = m.group("key")
    value, value_end = _first_word(m)
    if m.group("s4") is not None and (
        _QUOTED_PAIR.match(m.string, m.start("s4")) or _CODE.match(m.string, m.start("s4"))
    ):
        return False  # a (user, password) pair (the auth-tuple rule's), or source code
    if _placeholder(value) or secret_value(m).lower() in _LITERALS:
        return False  # `${DB_PASSWORD}`, `token=None`, `use_auth_token=True`
    if key.lower() == "pwd" and value.startswith(("/", "~")):
        return False  # the shell's working directory (`PWD=/home/alice`), in every env dump
    if key.lstrip("-").lower() == "authorization":
        return False  # the `authorization` rule knows its schemes
    spaced = not m.group("sep").strip()
    if spaced and (not key.startswith("-") or m.group("close") or secret_value(m).startswith("-")):
        return False
    if m.group("sep") == ":" and not m.group("close") and "_" not in key:
        # `secret-model:2`, `auth-proxy:443` are images and hosts, not keys; names with an
        # underscore (`WANDB_API_KEY:…`, `api_key:…`) never are.
        key = "".join(_CAMEL.findall(key)[-1:])
    return sensitive_key(key, flag=spaced) and not _plain_value(m, value, value_end)


#: A member that says whose credential a JSON object is (`kaggle.json`: username + key).
_IDENTITY_MEMBER = re.compile(
    r"\\?[\"'](?:username|user|login|email|client_id|account)\\?[\"'][ \t]*:", re.IGNORECASE
)
_OBJECT_REACH = 400  # how far a credential file's object is searched for its identity member


def credential_file(m: re.Match[str]) -> bool:
    """A JSON `"key"` whose object also names an identity: a credential file printed whole.

    `{"username": "alice", "key": "…"}` is `kaggle.json`; a `"key"` alone (`{"key":
    "batch_size"}`) is data. The object is its braces around the match, within reach.
    """
    text = m.string
    opened = text.rfind("{", max(0, m.start() - _OBJECT_REACH), m.start())
    closed = text.find("}", m.end(), m.end() + _OBJECT_REACH)
    if opened < 0 or text.rfind("}", opened, m.start()) >= 0:
        return False  # not inside one object
    obj = text[opened : closed if closed >= 0 else m.end() + _OBJECT_REACH]
    return _IDENTITY_MEMBER.search(obj) is not None and not _placeholder(secret_value(m))


def netrc(m: re.Match[str]) -> bool:
    """A `.netrc` entry's password: a value, not a placeholder or a word of prose."""
    value = secret_value(m)
    return not _placeholder(value) and value.lower() not in _PROSE_WORDS


def not_uid_gid(m: re.Match[str]) -> bool:
    """`docker run -u 1000:1000` is a user and group id, `-u http://app` a URL: no password."""
    value = m.group("s")
    return not value.isdigit() and not value.startswith("//")


def env_pair(m: re.Match[str]) -> bool:
    """A `name:`/`value:` env entry whose name is a credential key."""
    return sensitive_key(m.group("name"))


def element(m: re.Match[str]) -> bool:
    """`<password>…</password>`: an element named for a credential, holding a value."""
    name = m.group("key").rpartition(":")[2]
    return sensitive_key(name) and not _placeholder(secret_value(m).strip())


def header(m: re.Match[str]) -> bool:
    """A `Cookie:` header with a value, not prose."""
    return not _plain_value(m, secret_value(m), m.end())


def _credential_word(value: str) -> bool:
    """Whether a lone word after `password is` / `PASSWORD` reads as a credential.

    A word of at least four letters or digits does, unless it is a placeholder, one of the
    words messages put there (`password is incorrect`, `TOKEN not set`) or shouted prose
    (`PASSWORD NOT SET`).
    """
    if sum(c.isalnum() for c in value) < _MIN_WORD_SECRET or _placeholder(value):
        return False
    return value.lower() not in _PROSE_WORDS and not (value.isalpha() and value.isupper())


def stated(m: re.Match[str]) -> bool:
    """`the password is <value>` / `PASSWORD <value>` where the value reads as a credential.

    A value of words (quoted, or after `is:`) is a passphrase unless it reads as a sentence
    (`the token was "revoked by an admin"`, `the password is: not set`).
    """
    caps = m.group("caps")
    if caps is not None and not sensitive_key(caps):
        return False
    value = secret_value(m)
    if len(value.split()) > 1:
        return not _sentence(value)
    return _credential_word(value)


def prose_password(m: re.Match[str]) -> bool:
    """`… with password hunter2zz`: a word that reads as a password, not as prose.

    Prose says `password reset`, `password authentication failed`: a value counts only with
    a letter and a digit or symbol in it (or all digits), at least six long, and never a path
    or a URL.
    """
    value = secret_value(m)
    mixed = any(c.isalpha() for c in value) and any(c.isdigit() or not c.isalnum() for c in value)
    return (
        len(value) >= _MIN_PROSE_PASSWORD
        and (mixed or value.isdigit())
        and "/" not in value
        and not _placeholder(value)
        and value.lower() not in _PROSE_WORDS
    )


def authorization(m: re.Match[str]) -> bool:
    """`Authorization: [<scheme>] <credential>`; an unknown scheme needs a token-like credential."""
    scheme = m.group("scheme")
    if scheme and scheme.lower() not in SCHEMES:
        return token_like(secret_value(m))  # `Authorization: SSWS <token>`, `: Splunk <token>`
    return not _plain_value(m, secret_value(m), m.end())
