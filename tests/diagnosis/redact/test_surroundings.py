"""Only the secret is replaced: the text around it survives byte for byte.

A cited line must stay readable, so the key name, the user name, the next `;Key=value`,
the word after a token and the JSON after a quoted key are all context, never masked.
"""

from __future__ import annotations

import re
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from diagnosis.redact import MARKER, Redactor
from tests.diagnosis.redact.corpus import (
    HEX40,
    KAGGLE_KEY,
    PEM_LINES,
    SENDGRID,
    SSWS,
    TAILSCALE,
    VAULT,
)

PEM_JSON = "\\n".join(["-----BEGIN PRIVATE KEY-----", *PEM_LINES, "-----END PRIVATE KEY-----"])
PEM_CUT = "\\n".join(["-----BEGIN PRIVATE KEY-----", *PEM_LINES[:2]])
ODBC = "Driver={ODBC Driver 18 for SQL Server};Server=tcp:db;Uid=sa;Pwd=P@ssw0rd1;"
EMAIL = '"client_email": "trainer@acme-ml.iam.gserviceaccount.com"}'

CASES = [
    pytest.param(
        "token: abc123xyz. cached",
        "token: [REDACTED:secret-value]. cached",
        id="period-after-value",
    ),
    pytest.param(
        "HF_TOKEN=abc123xyz: cached",
        "HF_TOKEN=[REDACTED:secret-value]: cached",
        id="colon-after-value",
    ),
    pytest.param(
        "(Authorization: Bearer abc123xyz) cached",
        "(Authorization: Bearer [REDACTED:authorization]) cached",
        id="unbalanced-paren-after-value",
    ),
    pytest.param(
        "machine api.acme.io login ci password 0000A. retrying",
        "machine api.acme.io login ci password [REDACTED:netrc-password]. retrying",
        id="netrc-sentence-end",
    ),
    pytest.param("token: cached", "token: cached", id="cached-is-a-state"),
    pytest.param("password: ********", "password: ********", id="already-masked"),
    pytest.param(
        "r = requests.get(url, auth=('alice', 'hunter2'))",
        "r = requests.get(url, auth=('alice', '[REDACTED:auth-tuple]'))",
        id="auth-tuple-keeps-the-user",
    ),
    pytest.param(
        f"{ODBC}Encrypt=yes;TrustServerCertificate=no",
        f"{ODBC.replace('P@ssw0rd1', '[REDACTED:url-token]')}Encrypt=yes;TrustServerCertificate=no",
        id="odbc-keeps-encrypt",
    ),
    pytest.param(
        "Password=Odbc-Pa55;Encrypt=yes",
        "Password=[REDACTED:secret-value];Encrypt=yes",
        id="connection-string-first-pair",
    ),
    pytest.param(
        f'{{"private_key": "{PEM_JSON}\\n", {EMAIL}',
        f'{{"private_key": "[REDACTED:private-key]\\n", {EMAIL}',
        id="quoted-pem-keeps-the-json-after-it",
    ),
    pytest.param(
        f'{{"private_key": "{PEM_CUT}\\n", {EMAIL}',
        f'{{"private_key": "[REDACTED:private-key]\\n", {EMAIL}',
        id="quoted-pem-without-end",
    ),
    pytest.param(
        "-----BEGIN PRIVATE KEY-----\n" + "\n".join(PEM_LINES[:3]) + "\nserver listening on :8443",
        "[REDACTED:private-key]\nserver listening on :8443",
        id="cut-pem-keeps-the-next-line",
    ),
    pytest.param(
        f"wandb login {HEX40} && python train.py",
        "wandb login [REDACTED:cli-token] && python train.py",
        id="wandb-login",
    ),
    pytest.param(
        "the password is hunter2, change it",
        "the password is [REDACTED:stated-secret], change it",
        id="password-is",
    ),
    pytest.param(
        "PASSWORD hunter2-prod EPOCHS=3",
        "PASSWORD [REDACTED:stated-secret] EPOCHS=3",
        id="caps-key-space-value",
    ),
    pytest.param(
        f"Authorization: SSWS {SSWS} (okta)",
        "Authorization: SSWS [REDACTED:authorization] (okta)",
        id="any-auth-scheme-stays",
    ),
    pytest.param(
        f'{{"username":"alice","key":"{KAGGLE_KEY}"}} loaded',
        '{"username":"alice","key":"[REDACTED:credential-file]"} loaded',
        id="kaggle-json-keeps-the-user-and-the-braces",
    ),
    pytest.param(
        "machine api.wandb.ai login user password hunter2-x9 (from ~/.netrc)",
        "machine api.wandb.ai login user password [REDACTED:netrc-password] (from ~/.netrc)",
        id="netrc-keeps-machine-and-login",
    ),
    pytest.param(
        f"mail via {SENDGRID}: 401 Unauthorized",
        "mail via [REDACTED:vendor-token]: 401 Unauthorized",
        id="sendgrid-both-halves-one-marker",
    ),
    pytest.param(
        f"token {VAULT}. Retrying",
        "token [REDACTED:vendor-token]. Retrying",
        id="vault-token-keeps-the-sentence",
    ),
    pytest.param(
        f"--authkey={TAILSCALE} --hostname=trainer-0",
        "--authkey=[REDACTED:vendor-token] --hostname=trainer-0",
        id="tailscale-keeps-the-next-flag",
    ),
    # A bare value after `key: ` / `key=` is the rest of the line (a passphrase is words) up to
    # what begins something else; a `--key value` flag and a glued `key:value` take one word.
    pytest.param(
        "password: correct horse battery staple",
        "password: [REDACTED:secret-value]",
        id="passphrase-yaml",
    ),
    pytest.param(
        "passphrase = my very secret words",
        "passphrase = [REDACTED:secret-value]",
        id="passphrase-spaced-equals",
    ),
    pytest.param("secret: two words", "secret: [REDACTED:secret-value]", id="two-words"),
    pytest.param("api_key: abc def", "api_key: [REDACTED:secret-value]", id="api-key-two-words"),
    pytest.param(
        "db:\n  password: correct horse battery staple  # comment\n  host: pg",
        "db:\n  password: [REDACTED:secret-value]  # comment\n  host: pg",
        id="passphrase-keeps-the-yaml-comment-and-the-next-line",
    ),
    pytest.param("PASSWORD=correct horse", "PASSWORD=[REDACTED:secret-value]", id="env-two-words"),
    pytest.param(
        '{"password": "correct horse battery", "user": "ml"}',
        '{"password": "[REDACTED:secret-value]", "user": "ml"}',
        id="json-quoted-passphrase",
    ),
    pytest.param(
        "password: correct horse, user: bob",
        "password: [REDACTED:secret-value], user: bob",
        id="passphrase-ends-at-a-comma",
    ),
    pytest.param(
        "password=correct horse; retrying",
        "password=[REDACTED:secret-value]; retrying",
        id="passphrase-ends-at-a-semicolon",
    ),
    pytest.param(
        "password: correct horse. Retrying in 5s",
        "password: [REDACTED:secret-value]. Retrying in 5s",
        id="passphrase-ends-with-the-sentence",
    ),
    pytest.param(
        "PASSWORD=correct horse EPOCHS=3 user: bob",
        "PASSWORD=[REDACTED:secret-value] EPOCHS=3 user: bob",
        id="passphrase-ends-at-the-next-key",
    ),
    pytest.param(
        "-e DB_PASSWORD=correct horse -e EPOCHS=3 -- python train.py",
        "-e DB_PASSWORD=[REDACTED:secret-value] -e EPOCHS=3 -- python train.py",
        id="passphrase-ends-at-a-flag",
    ),
    pytest.param(
        "DB_PASSWORD=correct horse (from secret db-creds) && python train.py",
        "DB_PASSWORD=[REDACTED:secret-value] (from secret db-creds) && python train.py",
        id="passphrase-ends-at-a-word-of-punctuation",
    ),
    pytest.param(
        "env:\n- name: DB_PASSWORD\n  value: correct horse battery\n- name: EPOCHS",
        "env:\n- name: DB_PASSWORD\n  value: [REDACTED:env-secret]\n- name: EPOCHS",
        id="env-entry-passphrase",
    ),
    pytest.param(
        "python serve.py --api-key Zq81xY configs/serve.yaml",
        "python serve.py --api-key [REDACTED:secret-value] configs/serve.yaml",
        id="flag-value-is-one-word",
    ),
    pytest.param(
        "WANDB_API_KEY:0a1b2c3d4e set by init script",
        "WANDB_API_KEY:[REDACTED:secret-value] set by init script",
        id="glued-colon-value-is-one-word",
    ),
    # ... and a sentence after the key stays readable: its first word says so
    pytest.param(
        "token: could not reach the server (dial tcp 10.0.0.7:443: i/o timeout)",
        "token: could not reach the server (dial tcp 10.0.0.7:443: i/o timeout)",
        id="sentence-after-the-key",
    ),
    pytest.param(
        "token: expired at 13:37, refreshing",
        "token: expired at 13:37, refreshing",
        id="state-word-then-more",
    ),
    pytest.param(
        "password reset requested for user bob; invalid password",
        "password reset requested for user bob; invalid password",
        id="password-mentioned-in-prose",
    ),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_only_the_secret_is_replaced(text: str, expected: str):
    assert Redactor().clean(text) == expected


# ------------------------------------------------------------------ property: byte for byte

ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
PROSE = st.lists(
    st.sampled_from(
        ["epoch", "3", "loss=0.41", "step", "done", "cached", "saved", "retrying", "(ok)",
         "GPU", "rank", "failed", "after", "42s", "at", "/data/shard-07", "Encrypt=yes", "->"]
    ),
    max_size=6,
).map(" ".join)  # fmt: skip
BEFORE = st.sampled_from([" ", "\n", "(", "\t", ": "])
AFTER = st.sampled_from([" ", "\n", ". ", ", ", "; ", ": ", " (", "\t"])


def text_of(alphabet: str, n: int, m: int) -> st.SearchStrategy[str]:
    return st.text(alphabet=alphabet, min_size=n, max_size=m)


def with_digit(s: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return s.filter(lambda v: any(c.isdigit() for c in v) and any(c.isalpha() for c in v))


values = with_digit(text_of(ALNUM + "-_", 8, 30))
# A password may hold a `.`, but not end with sentence punctuation: `password abc1.` followed by
# a space reads as a sentence, and its `.` stays (the `netrc-sentence-end` case above).
passwords = with_digit(text_of(ALNUM + "-_.~!$*+%", 6, 24)).filter(lambda v: v[-1] not in ".,:;")


#: What ends a bare `KEY=value` (which may be words, a passphrase) before other text follows.
VALUE_ENDS = st.sampled_from(["\n", ",", ";", " # from .env", " --epochs 3", " EPOCHS=3", " (env)"])


def planted(prefix: str, secret: str, suffix: str = "") -> tuple[str, str, str]:
    return prefix, secret, suffix


SECRETS = st.one_of(
    st.builds(lambda s: planted("", "ghp_" + s), text_of(ALNUM, 36, 36)),
    st.builds(lambda s: planted("", "hf_" + s), text_of(string.ascii_letters, 34, 34)),
    st.builds(lambda s: planted("", "AKIA" + s), text_of(string.ascii_uppercase + string.digits, 16, 16)),
    st.builds(
        lambda k, v, end: planted(f"{k}=", v, end),
        st.sampled_from(["PASSWORD", "DB_PASSWORD", "HF_TOKEN", "api_key", "client_secret", "--password"]),
        values,
        VALUE_ENDS,
    ),
    st.builds(
        lambda scheme, user, pw, host: planted(f"{scheme}://{user}:", pw, f"@{host}/runs"),
        st.sampled_from(["postgres", "mysql", "redis", "amqp"]),
        text_of(string.ascii_lowercase, 1, 10),
        passwords,
        st.sampled_from(["db", "pg.ml.svc:5432", "10.0.0.4:3306"]),
    ),
    st.builds(lambda h: planted("wandb login ", h), with_digit(text_of(HEX, 40, 40))),
    st.builds(lambda pw: planted("the password is ", pw), with_digit(text_of(ALNUM, 6, 20))),
    st.builds(lambda pw: planted("PASSWORD ", pw), with_digit(text_of(ALNUM + "-", 6, 20))),
    st.builds(lambda h: planted('{"username": "alice", "key": "', h, '"}'), with_digit(text_of(HEX, 32, 32))),
    st.builds(lambda pw: planted("machine api.acme.io login ci password ", pw), passwords),
    st.builds(lambda a, b: planted("", f"SG.{a}.{b}"), text_of(ALNUM + "-_", 22, 22), text_of(ALNUM + "-_", 43, 43)),
    st.builds(lambda s: planted("", "hvs." + s), text_of(ALNUM + "-_", 24, 90)),
    st.builds(
        lambda lines: planted("", "-----BEGIN PRIVATE KEY-----\n" + "\n".join(lines) + "\n-----END PRIVATE KEY-----"),
        st.lists(text_of(ALNUM + "+/", 64, 64), min_size=1, max_size=4),
    ),
)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(PROSE, BEFORE, SECRETS, AFTER, PROSE)
def test_text_around_a_planted_secret_survives_byte_for_byte(before, sep1, secret, sep2, after):
    prefix, value, suffix = secret
    head, tail = before + sep1 + prefix, suffix + sep2 + after
    out = Redactor().clean(head + value + tail)
    assert out.startswith(head), (out, head)
    assert out.endswith(tail), (out, tail)
    middle = out[len(head) : len(out) - len(tail)]
    assert re.fullmatch(MARKER.pattern, middle), middle


# ------------------------------------------------------------------ property: a passphrase

PASSPHRASE_WORDS = st.lists(
    st.sampled_from(
        ["correct", "horse", "battery", "staple", "purple", "monkey", "dishwasher", "tango",
         "orbit", "lantern", "velvet", "quartz", "7", "42x", "Zebra", "ok!"]
    ),
    min_size=1,
    max_size=6,
).map(" ".join)  # fmt: skip
#: A key and its separator where a value may be words: at a line's start (YAML, a config
#: dump, an env listing), or anywhere with `=`.
KEYS = st.sampled_from(
    ["password: ", "  passphrase: ", "db:\n  password:\t", "secret: ", "- api_key: ",
     "PASSWORD=", "DB_PASSWORD = ", "level=error msg=connect db_password=", "cfg HF_TOKEN=", "--password="]
)  # fmt: skip
#: What ends the value, and the text after it: all of it survives.
ENDS = st.sampled_from(
    ["", "\n", "\nhost: pg", "  # rotated monthly", ", user: bob", "; retrying", ". Retrying",
     " EPOCHS=3", " user: bob", " --epochs 3", " -- python train.py", " (from secret db)",
     " && python train.py", " | tee log"]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(KEYS, PASSPHRASE_WORDS, ENDS)
def test_a_passphrase_is_masked_whole_and_what_ends_it_survives(key, words, end):
    """`password: correct horse battery staple`: every word masked, in one marker."""
    redactor = Redactor()
    out = redactor.clean(key + words + end)
    assert out == key + "[REDACTED:secret-value]" + end
    assert redactor.counts == {"secret-value": 1}
    assert Redactor().clean(out) == out
