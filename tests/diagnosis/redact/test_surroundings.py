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


def planted(prefix: str, secret: str, suffix: str = "") -> tuple[str, str, str]:
    return prefix, secret, suffix


SECRETS = st.one_of(
    st.builds(lambda s: planted("", "ghp_" + s), text_of(ALNUM, 36, 36)),
    st.builds(lambda s: planted("", "hf_" + s), text_of(string.ascii_letters, 34, 34)),
    st.builds(lambda s: planted("", "AKIA" + s), text_of(string.ascii_uppercase + string.digits, 16, 16)),
    st.builds(
        lambda k, v: planted(f"{k}=", v),
        st.sampled_from(["PASSWORD", "DB_PASSWORD", "HF_TOKEN", "api_key", "client_secret", "--password"]),
        values,
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
