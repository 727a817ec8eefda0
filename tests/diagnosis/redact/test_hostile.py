"""Redaction stays linear on hostile repeats of what each rule looks for (`tests.linear_time`).

One piece per shape the rules learnt in `test_leaks`: its key, its separator, its value's
start, repeated 4,096 times (after a head, if the shape needs one) and then four times as
often; the growth is held, not the time. Fewer repeats hide a quadratic blow-up behind the
fixed cost of each rule's Python check: a quadratic `;Password={` grew less than 8x from 11 to
45 KB, 10x from 45 to 180 KB, where a linear shape grows 4x.
"""

from __future__ import annotations

import pytest

from diagnosis.redact import Redactor
from tests.linear_time import assert_grows_linearly, repeated

REPEATS = 4096

PIECES = [
    # a key in mid-line, then words (`db password: correct horse`)
    "db password: a ",
    "db password: hunter ",
    "x password: a b:c ",
    "password: a:",
    # a qualified key (`api key:`)
    "my api key: ",
    "api key ",
    "a key: b ",
    # a YAML block scalar, an indexed key, a literal, wandb.login
    "token: |\n  ",
    "token: >\n a\n",
    "['token'] = ",
    "token=None ",
    "wandb.login(key='",
    # `the password is` a quoted value, or words after a colon
    "password is 'a ",
    "password is: a ",
    "token was `",
    # `=>` and `:=` separators
    "password => ",
    "password :=",
    "a=>",
    # a connection string's password, words to the next `;`, or braced
    ";pwd=a ",
    ";Password={",
    ";pwd=a b=",
    # source code where a value would be
    "token = a.",
    "token = a(",
    "token = a.b[",
    "token=$(",
    # percent-encoded URLs inside a query
    "%3Ftoken%3D",
    "%26sig%3Da%",
    "%3A%2F%2Fa%3A",
    "%3A%2F%2F",
    # vendor keys known by their prefix
    "npm_",
    "ya29.a",
    "IQoJb3JpZ2luX2Vj",
    "sk_live_a",
    # HTTP Basic credentials away from their header
    "Basic dXNlcjpwYXNz",
    "basic a",
    # an XML element named for a credential
    "<password>",
    "<password>a</",
    "<a",
    # command lines and their password flags
    "mongo -p ",
    "redis-cli -a ",
    "sqlcmd ",
    "ldapsearch -w",
    "-storepass ",
    "mysql -p'",
    "smbclient -U a%",
    # escape sequences and invisible characters, dropped before the rules
    "\x1b[1;",
    "\x1b]8;;",
    "\x1b[31mpassword\x1b[0m=a\u200b",
]


#: Pieces repeated after something said once: a private key's first line, whose body lines
#: may carry a log's prefix.
BEGIN = "-----BEGIN PRIVATE KEY-----"
AFTER_A_HEAD = [
    (BEGIN, "\n2024-06-05T13:37:42Z AAAAAAAAAAAAAAAAAAAA"),
    (BEGIN, "\na b c d e "),
    (BEGIN, "\n[pod/x] a"),
    (BEGIN, " a"),
    ("", f"{BEGIN}\nt "),
]


@pytest.mark.parametrize("piece", PIECES)
def test_hostile_repeats_are_redacted_in_linear_time(piece: str):
    assert_grows_linearly(
        Redactor().clean,
        lambda size: "ERROR " + repeated(piece, size) + "x",
        REPEATS * len(piece),
    )


@pytest.mark.parametrize(("head", "piece"), AFTER_A_HEAD)
def test_hostile_repeats_after_a_head_are_redacted_in_linear_time(head: str, piece: str):
    assert_grows_linearly(
        Redactor().clean,
        lambda size: "ERROR " + head + repeated(piece, size) + "x",
        REPEATS * len(piece),
    )
