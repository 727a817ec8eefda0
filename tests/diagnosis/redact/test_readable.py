"""Text near credential keys and shapes that holds no secret: a reader must still read it.

An error's text after a key, literals, paths, flags that take no password, and the source
lines a traceback quotes; each was masked, or would be by a rule `test_leaks` holds.
"""

from __future__ import annotations

import pytest

from diagnosis.redact import Redactor

#: The same keys and shapes with no secret: an error's text first, then the rest.
STAYS = [
    "failed to fetch oauth token: unexpected status: 401 Unauthorized",
    "reading db password: permission denied",
    "refresh token: context deadline exceeded",
    "could not load api key: no such file or directory",
    "error: api key: invalid format",
    "the api key: is missing",
    "cache key: abc",
    'password authentication failed for user "train"',
    "token expired",
    "request 7 failed: token: could not be refreshed",
    "registry token: unable to reach the auth server",
    "failed to verify token: token is expired",
    "get token: rpc error: code = Unavailable",
    # a sentence after `the password is`, quoted or after a colon
    'the token was "revoked by an admin"; the password is: not set',
    # the shell's working directory in an env dump
    "PWD=/home/alice/train OLDPWD=/root HOME=/root",
    # null and boolean literals after a credential key
    "Namespace(token=None, lr=0.1, use_auth_token=True, password=null, hf_token=False)",
    # a block scalar under a key that names no secret
    "description: |\n  the token is rotated\n  weekly",
    # keys that end in `key` and name no secret
    "CACHE_KEY=run-7 PARTITION_KEY=user SORT_KEY=ts S3_KEY=ckpt/epoch10.pt",
    "partition key: user_id",
    # `basic` before a word that is no base64 of `user:password`
    'WWW-Authenticate: Basic realm="Registry" basic authentication required; basic Zm9vYmFyYmF6',
    # elements that are not credentials
    "<secretName>hf-token</secretName><tokenizer>llama</tokenizer><password>****</password>",
    # flags that take no password: a port, a database, statistics
    "redis-cli -h redis -p 6379 ping",
    "mysql -h db -u root -p experiments",
    "sqlcmd -S db -U sa -p -Q 'select 1'",
    "docker run --rm -u 1000:1000 nvcr.io/nvidia/pytorch:24.05-py3",
]


@pytest.mark.parametrize("text", STAYS)
def test_text_without_a_secret_stays(text: str):
    redactor = Redactor()
    assert redactor.clean(text) == text
    assert redactor.total == 0


#: Source lines a traceback quotes: the value is code, and what it yields is not in the text.
SOURCE_LINES = [
    '    token = os.environ["HF_TOKEN"]',
    "    password = getpass.getpass()",
    '    client = OpenAI(api_key=os.environ["OPENAI_API_KEY"], timeout=30)',
    '    password = os.environ.get("DB_PASSWORD", "")',
    "    secret = client.access_secret_version(name=name)",
    '    HF_TOKEN = getenv("HF_TOKEN")',
    '\ttoken := os.Getenv("TOKEN")',
    "+ export HF_TOKEN=$(cat /run/secrets/hf)",
]


@pytest.mark.parametrize("text", SOURCE_LINES)
def test_a_source_line_after_a_key_stays(text: str):
    redactor = Redactor()
    assert redactor.clean(text) == text
    assert redactor.total == 0


#: ... but a password that merely ends in brackets is no call.
NOT_CODE = [
    pytest.param("    password = hunter2(!)", "hunter2", id="symbols-in-brackets"),
    pytest.param("PASSWORD=Tr0ub4dor(3)", "Tr0ub4dor", id="digit-in-brackets"),
    pytest.param("password: s3cr3t[x]", "s3cr3t", id="unquoted-index"),
]


@pytest.mark.parametrize(("text", "secret"), NOT_CODE)
def test_a_password_shaped_like_a_call_is_masked(text: str, secret: str):
    assert secret not in Redactor().clean(text)
