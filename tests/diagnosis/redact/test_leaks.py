"""Leaks found by hunting: secrets as SREs paste them and as logs print them, each once visible.

Every case is the whole output expected, so the context around the secret is held too; what
must stay readable near the same keys is in `test_readable`.
"""

from __future__ import annotations

import sys
import unicodedata

import pytest

from diagnosis.redact import Redactor

SV = "[REDACTED:secret-value]"
CLI = "[REDACTED:cli-password]"
UT = "[REDACTED:url-token]"
ST = "[REDACTED:stated-secret]"
GHP = "ghp_L6Ch7teYjqhPApp2zBauu1zKgo6aXlrdNsmI"

#: Environment variables whose last word, `key`, names a secret only with the word before it.
KEY_NAMES = [
    "ENCRYPTION_KEY", "MASTER_KEY", "SIGNING_KEY", "HMAC_KEY", "DD_APP_KEY", "APP_KEY",
    "LICENSE_KEY", "AZURE_STORAGE_KEY", "STORAGE_ACCOUNT_KEY", "DEPLOY_KEY", "KAGGLE_KEY",
    "signingKey", "Ocp-Apim-Subscription-Key",
]  # fmt: skip

PEM = [
    "-----BEGIN RSA PRIVATE KEY-----",
    "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj",
    "IIgjIC3qKFDd85Nw3cHOeQCpMnGrSw8IHKCnbavOFvGNG8C1GC0zYFDqxTXsD5k/",
    "8Y0qF8+s73d+Sl9q0mJofrE7j43gZMpabJ0d+LZV5SwzMyu/A2JyL+RVOvoIEPup",
    "-----END RSA PRIVATE KEY-----",
]
VENDOR_KEYS = [
    "npm_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5",
    "pypi-AgEIcHlwaS5vcmcCJGE4ZjY0NDY1LTk3MjQtNDhlMS1iN2E1LWY5ZWFiNjk0YjQ2ZgACKlsz",
    "dckr_pat_2b3e36beeb386dfdaacb9b46004",
    "ya29.a0AfB_byC7dE9fG1hI3jK5lM7nO9pQ1rS3tU5vW7xY9zA1bC3dE5fG7",
    "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",
    "dapi0123456789abcdef0123456789abcdef-2",
    "glsa_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW_0a1b2c3d",
    "sk_live_51H8xYzAbCdEfGhIjKlMnOpQr",
    "IQoJb3JpZ2luX2VjEHYaCXVzLWVhc3QtMSJHMEUCIQDabcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMN"
    "OPQRSTUVWXYZ0123456789abcdef",
    "AGE-SECRET-KEY-1QYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQ",
]

LEAKS = [
    # A credential key in mid-line, then a passphrase of lowercase words: not a sentence.
    pytest.param(
        "db password: correct horse battery staple",
        f"db password: {SV}",
        id="mid-line-key-lowercase-passphrase",
    ),
    pytest.param(
        "connecting with db password: hunter two three",
        f"connecting with db password: {SV}",
        id="mid-line-key-after-prose",
    ),
    pytest.param(
        "db password: correct horse open staple",
        f"db password: {SV}",
        id="mid-line-passphrase-holding-an-error-word",
    ),
    pytest.param(
        "level=info msg=init db password: violet orbit (rotated)",
        f"level=info msg=init db password: {SV} (rotated)",
        id="mid-line-key-passphrase-then-more",
    ),
    # `api key`, `access key`: the word before a bare `key` names it.
    pytest.param("my api key: abc def", f"my api key: {SV}", id="two-word-key-passphrase"),
    pytest.param("api key: abcd efgh", f"api key: {SV}", id="two-word-key-long-first-word"),
    pytest.param("access key = s3cr3t", f"access key = {SV}", id="two-word-key-equals"),
    # A word glued to a colon is part of the passphrase, not the next key.
    pytest.param(
        "password: correct horse battery staple:x",
        f"password: {SV}",
        id="passphrase-word-with-colon",
    ),
    pytest.param(
        "password: correct horse battery staple:x more",
        f"password: {SV}",
        id="passphrase-word-with-colon-then-more",
    ),
    pytest.param(
        "PASSWORD=tango velvet:9 EPOCHS=3",
        f"PASSWORD={SV} EPOCHS=3",
        id="env-passphrase-word-with-colon",
    ),
    # Ruby's and PHP's `=>`, Go's `:=`: the value after them, not the separator's last character.
    pytest.param(":password => 'hunter2zz'", f":password => '{SV}'", id="ruby-hash-rocket"),
    pytest.param(
        "'db_password' => \"hunter2zz\",", f"'db_password' => \"{SV}\",", id="php-array-arrow"
    ),
    pytest.param('password := "hunter2zz"', f'password := "{SV}"', id="go-short-declaration"),
    pytest.param("password => hunter2zz", f"password => {SV}", id="arrow-bare-value"),
    # A YAML block scalar: the value is the indented lines after the key.
    pytest.param(
        "auth:\n  token: |\n    Zq81xY-line-1\n    Zq81xY-line-2\n  host: db",
        f"auth:\n  token: |\n    {SV}\n  host: db",
        id="yaml-block-scalar",
    ),
    pytest.param(
        "password: >-  # folded\n  correct horse\nnext: 1",
        f"password: >-  # folded\n  {SV}\nnext: 1",
        id="yaml-folded-scalar-with-comment",
    ),
    pytest.param(
        "env:\n- name: DB_PASSWORD\n  value: |\n    amber falcon\n- name: X",
        "env:\n- name: DB_PASSWORD\n  value: |\n    [REDACTED:env-secret]\n- name: X",
        id="env-entry-block-scalar",
    ),
    # A key indexed in source code (`os.environ["…"] = …`), a traceback's line.
    pytest.param(
        'os.environ["WANDB_API_KEY"] = "0123456789abcdef0123456789abcdef01234567"',
        f'os.environ["WANDB_API_KEY"] = "{SV}"',
        id="environ-index-assignment",
    ),
    pytest.param(
        "$config['db_password'] = 'x y';", f"$config['db_password'] = '{SV}';", id="php-index"
    ),
    pytest.param(
        'wandb.login(anonymous="never", key="0123456789abcdef0123456789abcdef01234567")',
        'wandb.login(anonymous="never", key="[REDACTED:cli-token]")',
        id="wandb-login-key-argument",
    ),
    # `the password is …`: a quoted value may be words, and so may a bare one after `is:`.
    pytest.param(
        "the password is `hunter two`", f"the password is `{ST}`", id="stated-backticked-words"
    ),
    pytest.param(
        "the password was 'correct horse battery'",
        f"the password was '{ST}'",
        id="stated-quoted-passphrase",
    ),
    pytest.param(
        "note: the password is: hunter two three",
        f"note: the password is: {ST}",
        id="stated-colon-passphrase",
    ),
    # Keys that name a secret with a word before `key`.
    *(pytest.param(f"{key}=Zq81xY-9k", f"{key}={SV}", id=key) for key in KEY_NAMES),
    # Vendor keys known by their prefix.
    *(
        pytest.param(
            f"auth with {key} failed", "auth with [REDACTED:vendor-key] failed", id=key[:8]
        )
        for key in VENDOR_KEYS
    ),
    # A private key whose lines carry their log's prefix.
    pytest.param(
        "\n".join(f"2024-06-05T13:37:42.1Z {line}" for line in PEM),
        "2024-06-05T13:37:42.1Z [REDACTED:private-key]",
        id="pem-lines-with-timestamps",
    ),
    pytest.param(
        "\n".join(f"[pod/trainer-0/main] {line}" for line in [*PEM[:3], "loaded"]),
        "[pod/trainer-0/main] [REDACTED:private-key]\n[pod/trainer-0/main] loaded",
        id="pem-lines-with-kubectl-prefix-cut-short",
    ),
    pytest.param(
        "\n".join(f"2024-06-05 13:37:42,123 INFO {line}" for line in [*PEM[:3], "kQ==", "done"]),
        "2024-06-05 13:37:42,123 INFO [REDACTED:private-key]\n2024-06-05 13:37:42,123 INFO done",
        id="pem-lines-with-logger-prefix-and-padded-last-line",
    ),
    # HTTP Basic credentials away from their header.
    pytest.param(
        "Get https://r.io/v2/: using Basic Y2ktYm90OnFvRktPV3NlZ3RFeHFGYXc= (retry 2)",
        "Get https://r.io/v2/: using Basic [REDACTED:basic-credential] (retry 2)",
        id="basic-credential-in-prose",
    ),
    # A URL inside another URL's query is percent-encoded.
    pytest.param(
        "GET /login?next=%2Fapi%3Ftoken%3DZq81xY-9k%26x%3D1 HTTP/1.1",
        f"GET /login?next=%2Fapi%3Ftoken%3D{UT}%26x%3D1 HTTP/1.1",
        id="encoded-query-token",
    ),
    pytest.param(
        "302 to /cb?redirect=https%3A%2F%2Fbob%3AHunter2zz%40git.acme.io%2Frepo&x=1",
        "302 to /cb?redirect=https%3A%2F%2Fbob%3A[REDACTED:url-password]%40git.acme.io%2Frepo&x=1",
        id="encoded-url-password",
    ),
    # A connection string's `;Password=`: words up to the next `;`, or braced.
    pytest.param(
        "Server=db;User Id=sa;Password=correct horse;Encrypt=yes",
        f"Server=db;User Id=sa;Password={UT};Encrypt=yes",
        id="connection-string-passphrase",
    ),
    pytest.param(
        "Host=pg;Username=ml;Password=correct horse battery",
        f"Host=pg;Username=ml;Password={UT}",
        id="connection-string-passphrase-at-the-end",
    ),
    pytest.param(
        "Driver={ODBC Driver 18};Server=db;Uid=sa;Pwd={pa;ss word};Encrypt=yes",
        f"Driver={{ODBC Driver 18}};Server=db;Uid=sa;Pwd={UT};Encrypt=yes",
        id="odbc-braced-password",
    ),
    pytest.param(
        "login failed: Server=db;Pwd=hunter2zz (error 18456)",
        f"login failed: Server=db;Pwd={UT} (error 18456)",
        id="connection-string-then-prose",
    ),
    # An XML element named for a credential.
    pytest.param(
        "<Password>correct horse</Password>",
        "<Password>[REDACTED:xml-secret]</Password>",
        id="xml-element-passphrase",
    ),
    pytest.param(
        "<soap:Fault><ns:apiKey>k-7f3e9a</ns:apiKey></soap:Fault>",
        "<soap:Fault><ns:apiKey>[REDACTED:xml-secret]</ns:apiKey></soap:Fault>",
        id="xml-element-with-a-namespace",
    ),
    # Command lines: each tool's own password flag.
    pytest.param(
        "mysql -u root -p'hunter2zz' db", f"mysql -u root -p'{CLI}' db", id="mysql-glued-quoted"
    ),
    pytest.param(
        'mysqldump -u root -p"correct horse" db',
        f'mysqldump -u root -p"{CLI}" db',
        id="mysql-glued-double-quoted-words",
    ),
    pytest.param(
        "redis-cli -h redis -p 6379 -a hunter2zz ping",
        f"redis-cli -h redis -p 6379 -a {CLI} ping",
        id="redis-cli-a",
    ),
    pytest.param(
        "mongosh mongodb://db -u admin -p 'hunter2zz' --quiet",
        f"mongosh mongodb://db -u admin -p '{CLI}' --quiet",
        id="mongo-p",
    ),
    pytest.param(
        'sqlcmd -S db -U sa -P hunter2zz -Q "select 1"',
        f'sqlcmd -S db -U sa -P {CLI} -Q "select 1"',
        id="sqlcmd-capital-p",
    ),
    pytest.param(
        "ldapsearch -x -D cn=admin,dc=acme -w hunter2zz -b dc=acme",
        f"ldapsearch -x -D cn=admin,dc=acme -w {CLI} -b dc=acme",
        id="ldapsearch-w",
    ),
    pytest.param(
        "keytool -importkeystore -srcstorepass hunter2zz -deststorepass hunter3zz",
        f"keytool -importkeystore -srcstorepass {CLI} -deststorepass {CLI}",
        id="keytool-storepass-both",
    ),
    pytest.param(
        "smbclient //nas/ckpt -U alice%hunter2zz -c ls",
        f"smbclient //nas/ckpt -U alice%{CLI} -c ls",
        id="smbclient-user-percent-password",
    ),
    pytest.param(
        "az login --service-principal -u http://trainer -p hunter2zz --tenant acme",
        f"az login --service-principal -u http://trainer -p {CLI} --tenant acme",
        id="az-login-p-and-its-url-user",
    ),
    # Colour codes and invisible characters split a secret or its key; the renderers drop
    # them, so the reader would see it whole.
    pytest.param(
        "\x1b[33mpassword\x1b[0m: hunter2zz",
        f"password: {SV}",
        id="coloured-key",
    ),
    pytest.param(
        "\x1b[1mDB_PASSWORD\x1b[0m=\x1b[35mhunter2zz\x1b[0m --epochs 3",
        f"DB_PASSWORD={SV} --epochs 3",
        id="coloured-key-and-value",
    ),
    pytest.param(
        f"cloning with {GHP[:12]}\x1b[0m{GHP[12:]} now",
        "cloning with [REDACTED:github-token] now",
        id="colour-code-inside-a-token",
    ),
    pytest.param(
        f"cloning with {GHP[:8]}\u200b{GHP[8:20]}\u00ad{GHP[20:]}",
        "cloning with [REDACTED:github-token]",
        id="zero-width-and-soft-hyphen-inside-a-token",
    ),
    pytest.param(
        "pass\u200dword=hunter2zz",
        f"password={SV}",
        id="zero-width-joiner-inside-the-key",
    ),
    pytest.param(
        "\x1b]8;;https://x.io\x1b\\link\x1b]8;;\x1b\\ token=\x1b[31ms3cr3t-value\x07",
        f"link token={SV}",
        id="terminal-hyperlink-and-bell",
    ),
]


@pytest.mark.parametrize(("text", "expected"), LEAKS)
def test_the_secret_is_masked_and_only_the_secret(text: str, expected: str):
    redactor = Redactor()
    assert redactor.clean(text) == expected
    assert redactor.total >= 1
    again = Redactor()
    assert again.clean(expected) == expected
    assert again.total == 0


def test_every_character_a_renderer_drops_is_dropped_before_the_rules():
    """Control (but tab and line breaks), format and surrogate code points: none survives."""
    dropped = [
        chr(cp)
        for cp in range(sys.maxunicode + 1)
        if unicodedata.category(chr(cp)) in {"Cc", "Cf", "Cs"} and chr(cp) not in "\t\n\r"
    ]
    text = "password" + "".join(dropped) + "=hunter2zz"
    assert Redactor().clean(text) == f"password={SV}"
