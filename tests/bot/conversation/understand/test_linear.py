"""Understanding takes time linear in the message, on every platform, whatever is pasted.

The same rule as `tests/bot/conversation/test_parse_linear.py` (`bot.conversation.parse_bounds`): each input is held
to `MULTIPLE` times the parse-to-scan ratio of ordinary incident messages, measured here.
The pieces are what the new patterns look for: Slack and Teams markup, links, label sets,
command lines, alert titles, compact forms, time words and corrections.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.conversation import Markup
from bot.conversation.parse_bounds import MAX_PARSED_CHARS
from bot.conversation.understand.pipeline import Known, understand
from tests.linear_time import assert_linear, ratio, repeated

CAP = MAX_PARSED_CHARS
MULTIPLE = 8.0
KNOWN = Known(
    clusters=tuple(f"prod-{i}" for i in range(200)),
    projects=tuple(f"team-{i}" for i in range(500)),
)
ORDINARY = [
    "<@UBOT> why did *train-bert* in `nlp` fail on <#C1|prod-1>? ",
    "alertname=KubePodCrashLooping cluster=prod-1 namespace=runai-nlp pod=bert-ft-0-0 ",
    "kubectl -n runai-nlp describe pod/bert-ft-0-0 on prod-1, since Saturday, pls \n",
]
#: What the new patterns look for, and fragments of it.
PIECES = [
    "<", "<h", "<http://a|", "<@U1|", "<#C1|", "<!here>", "<mailto:a@b|", "<at>", "</at>",
    "<at>x</at> ", '<a href="', '<a href="x">', "</a>", "<br>", "<p>", "&nbsp;", "&amp;",
    "https://a.run.ai/workloads?clusterId=", "workloadId=", "?", "&", "a=", "a=b ", "=",
    "namespace: ", "namespace=runai-", "pod=", "pod/", "uid=", "[FIRING:1] ", "kubectl ",
    "-n ", "--namespace=", "runai describe ", "-p ", "--uuid=", "a/", "a/b ", "a(", "(b) ",
    "since ", "since the ", "saturday ", "weekend ", "hasn't started ", "not ", "still ",
    "actually ", "the v2 one ", "wrong job ", "@", "@alice ", ":", ":a:", "*", "`", "_", "~",
    "#", "> ", "\n", " ", "prod-1 ", "team-1 ", "a-", "a" * 300, "a-" * 130,
    "3f1c2a9e-5b7d-4c1e-9a2f-8d6b0e4c7a11 ",
    "```", "NAME READY STATUS AGE\n", "a-0-0 0/1 Error 0 5m\n", "1/4 ", "last 3 days ",
    "what about ", "check again ", "I'll ", "will ", "again ", ", ", "not a-1 ", "not ",
    "a-1 or b-2 ", "on a or b ", "in a or ", "either ", "<#C1|prod-1> ", ":a-b:", "torch-2.3 ",
    "running on a-1 ", "a-1 node ", "node ", "wrong cluster ", "exported_pod=a ",
    "job_name=a ", "pod=kube-state-metrics-a ",
    "2025-11-04 ", "2025-11-04T10:32:00Z ", "11/04/2025 ", "1-1-1-1-", "1.1.2025.", "Nov 4 ",
    "4 Nov 2025 ", "4 of may ", "nov ", "1 ",
    "still crashlooping here ", "why is it stuck? ", "crash loop ", "it's still waiting ",
    "NAME STATUS AGE NODE IMAGE TYPE PROJECT USER\n", "a-1 Failed 1h n-1 r/i:1 Train p u\n",
    "a-1 Failed 1h r/i Train p u\n", "Workload Type Status Project\n", "\u2500\u2500\n",
    "why did a-1.2 fail ", ", a-1.2 failed ", "is a.", "a-1.2 still pending ",
    "CrashLoopBackOff! ", "Init:0/1 ", "stuck :( ", "it's still ", "mine is pending ",
    "NAME STATUS AGE NODE IMAGE TYPE PROJECT USER GPUs Allocated (Requested) PODs\n",
    "Running (Pending) SERVICE URL(S)\n", "a-1 Failed 2h n r/i:1 Train p u - (1) 0 (0)\n",
    "Workload Type Status Project Preemptible Running/Requested Pods\n",
    "a-1 Training Failed p Yes 0/2 0.00\n", "workload a-1 status failed project p ",
    "why did a-1.2 fail to load ", "a-1.2 crashed my a-1 ", ", a-1.2 failed to ",
    ": a-1.2 restart loop ", "a-1.2 crashed a-1.2 ",
    "job 2025-11-04 ", "why did a 2025-11-04 fail ", "why did a ", "a/b:2025-11-04 ",
    "submitted 2025-11-04 and failed on Nov 4 ", "actually it failed on Nov 4 ",
    "I meant Nov 4 ", "since 2025-11-01 please ", "ran fine on Nov 4, what about ",
    "stuck at step ", "stuck ", "after 1 h ", "1 h in. ", "longer than 2 ", "x's ", "a-1\u2019s ",
    "no, same here ", "too. ", "on a-1 (b) ", "nccl-2.18 hang on ", "a100 ", "64Gi ",
    "> a-1 on b\n", ">", "```\n> ", "(x12 over 5m) ",
]  # fmt: skip


def _understand(markup: Markup, *, directed: bool = True) -> Callable[[str], object]:
    def work(text: str) -> object:
        return understand(text, markup=markup, known=KNOWN, bot_user_id="UBOT", directed=directed)

    return work


@pytest.fixture(scope="module")
def allowed() -> float:
    """Time over linear-scan time an input may reach: MULTIPLE x ordinary messages'."""
    work = _understand(Markup.SLACK)
    return MULTIPLE * ratio(work, [repeated(m, CAP) for m in ORDINARY])


_HOSTILE = st.builds(
    repeated,
    st.lists(st.sampled_from(PIECES), min_size=1, max_size=6).map("".join),
    st.one_of(st.just(CAP), st.integers(min_value=1, max_value=CAP)),
)


@given(
    text=st.one_of(_HOSTILE, _HOSTILE.map(str.upper), st.text(max_size=CAP)),
    markup=st.sampled_from(list(Markup)),
)
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
def test_understanding_is_linear_up_to_the_cap(text, markup, allowed):
    assert_linear(_understand(markup), text, allowed)


@pytest.mark.parametrize("markup", list(Markup))
@pytest.mark.parametrize("pieces", PIECES)
def test_every_piece_repeated_to_the_cap_is_linear(pieces, markup, allowed):
    assert_linear(_understand(markup), repeated(pieces, CAP), allowed)


@pytest.mark.parametrize("pieces", PIECES)
def test_a_plain_reply_is_linear_too(pieces, allowed):
    """A reply reads times and re-runs only when asked for: that reading is linear as well."""
    assert_linear(_understand(Markup.SLACK, directed=False), repeated(pieces, CAP), allowed)
