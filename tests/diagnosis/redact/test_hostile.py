"""Redaction stays linear on hostile repeats of what each rule looks for (`tests.linear_time`).

One piece per shape the rules learnt in `test_leaks`: its key, its separator, its value's
start, repeated 4,096 times and then four times as often; the growth is held, not the time.
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
    # `=>` and `:=` separators
    "password => ",
    "password :=",
    "a=>",
    # a connection string's password, words to the next `;`, or braced
    ";pwd=a ",
    ";Password={",
    ";pwd=a b=",
    # vendor keys known by their prefix
    "npm_",
    "ya29.a",
    "IQoJb3JpZ2luX2Vj",
    "sk_live_a",
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


@pytest.mark.parametrize("piece", PIECES)
def test_hostile_repeats_are_redacted_in_linear_time(piece: str):
    assert_grows_linearly(
        Redactor().clean,
        lambda size: "ERROR " + repeated(piece, size) + "x",
        REPEATS * len(piece),
    )
