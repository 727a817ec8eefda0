"""A container log is the workload's to write: reading it takes time linear in its size.

One line of a log can be the whole 64 KB read (`LOG_BYTES`), and a hostile job can shape it
against any pattern. Finding the failing line and quoting it (which redacts it) are held to a
multiple of the ratio an ordinary log gets, both measured here (`tests.linear_time`); the
quadratic patterns this guards against took 6-18 s of the event loop on one such line.
"""

from __future__ import annotations

import pytest

from diagnosis.kube.pod_logs import LOG_BYTES
from diagnosis.logs import failing_line
from diagnosis.redact import Redactor
from tests.linear_time import assert_grows_linearly, assert_linear, ratio, repeated

#: How far past an ordinary log's time-to-scan ratio a hostile one may go. A hostile line
#: costs more per character than an ordinary log (every pattern reads all of it, and the
#: redaction rules try each repeat): 5-20x here, and up to twice that on a loaded machine,
#: where the quadratic patterns this guards against were 10,000x and more at this size.
MULTIPLE = 40.0

ORDINARY = [
    "Epoch 3 step 1200 loss=0.412 lr=3e-4\n" * 40
    + 'Traceback (most recent call last):\n  File "train.py", line 88, in <module>\n'
    + "RuntimeError: CUDA error: an illegal memory access was encountered\n",
    "[rank1]: NCCL WARN NET/IB : Got completion from peer 10.0.0.7 with error 12\n" * 30,
]

#: Pieces that the patterns and the redaction rules once took quadratic time over, and
#: their neighbours.
HOSTILE = [
    "1",
    "1/",
    "NCCL WARN ",
    "WorkNCCL(SeqNum=1",
    "key=",
    "auth",
    "token",
    "PASSWORD",
    "pass ",
    'auth="a",',
    "Authorization: ",
    "a-",
    "Error: ",
    # a bare value after `key: ` / `key=` runs on over words (a passphrase)
    "password: a ",
    "PASSWORD=a b ",
    "token=*** x(",
]


def _read(log: str) -> str:
    """What a diagnosis does with a log: find the failing line, then quote it, redacted."""
    found = failing_line(log)
    return found.quote(Redactor()) if found is not None else ""


@pytest.fixture(scope="module")
def allowed() -> float:
    """Reading time over linear-scan time that a log may reach: MULTIPLE x an ordinary one's."""
    return MULTIPLE * ratio(_read, [repeated(log, LOG_BYTES) for log in ORDINARY])


@pytest.mark.parametrize("piece", HOSTILE)
@pytest.mark.parametrize(("before", "after"), [("ERROR ", "x"), ("", "!")])
def test_one_hostile_line_of_the_whole_read_is_read_in_linear_time(piece, before, after, allowed):
    line = before + repeated(piece, LOG_BYTES - len(before) - len(after)) + after
    assert_linear(_read, line, allowed)


@pytest.mark.parametrize("piece", HOSTILE)
def test_redaction_alone_is_linear(piece):
    """The redactor reads other upstream text whole (a submitted command, an event).

    Some hostile texts make every repeat a candidate for a rule's second opinion (a Python
    check): linear, but far dearer per character than a scan; so the bound here is growth.
    """
    assert_grows_linearly(
        Redactor().clean, lambda size: "ERROR " + repeated(piece, size) + "x", LOG_BYTES // 8
    )


def test_a_long_line_is_quoted_around_its_error_and_redacted():
    line = "x" * 30_000 + " RuntimeError: bad token=s3cr3t-Value-42 here " + "y" * 30_000
    found = failing_line(line)
    assert found is not None
    quoted = found.quote(Redactor())
    assert "RuntimeError: bad token=[REDACTED:" in quoted
    assert "s3cr3t" not in quoted
    assert len(quoted) <= 210  # the quote's limit and its cut marks
