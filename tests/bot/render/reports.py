"""Reports for renderer tests: a typical OOM report, and Hypothesis' hostile ones."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from diagnosis import Category, EvidenceLine, Outcome, Recurrence, Report, WorkloadRef
from tests import factories

__all__ = ["HOSTILE", "WORKLOAD", "maybe_long", "report", "reports", "untrusted", "workloads"]

WORKLOAD = WorkloadRef(
    id="3f1c2a9e", name="training-job-42", project="ml-team", cluster_id="prod-a", phase="Failed"
)


def report(**overrides: Any) -> Report:
    body: dict[str, Any] = {
        "outcome": Outcome.DIAGNOSED,
        "category": Category.OOM_KILLED,
        "workload": WORKLOAD,
        "headline": "The main container was OOM-killed at 97% of its memory limit.",
        "evidence": (
            EvidenceLine(
                text="Peak CPU-memory usage: 31 GiB = 97% of the limit",
                source="get_workload_metrics",
            ),
        ),
        "recurrence": Recurrence(count=3, lookback="24h", recurring=True),
        "recommendations": ("Raise the memory limit to 40 GiB.",),
        "missing": ("GPU memory (metrics unavailable)",),
        "redactions": 2,
    }
    body.update(overrides)
    return factories.report(**body)


HOSTILE = [
    "<!channel>", "<!here>", "<!everyone>", "<@U123>", "<@W1|bob>", "<#C123|general>",
    "<!subteam^S1>", "<https://evil.example|click>", "<http://x>", "<mailto:a@b>", "<", ">",
    "&", "&amp;", "&lt;", "&#60;", "`", "```", "*", "_", "~", "\n", "\r\n", "\u2028",
    "\u200b", "\u200d", "\u202e", "\u2066", "\ufeff", "\x1b[2J", "\x00", "\x7f", "\x85",
    "\ud83d", "😀", "@channel", "@here", ":rotating_light:", "…",
]  # fmt: skip
untrusted = st.one_of(
    st.text(),
    st.lists(st.one_of(st.sampled_from(HOSTILE), st.text(max_size=10)), max_size=12).map("".join),
)
# Repeated to hundreds or thousands of characters, so long lines and overflow are common.
maybe_long = st.one_of(
    untrusted, st.builds(lambda s, n: (s + "y") * n, untrusted, st.integers(20, 400))
)
workloads = st.builds(
    WorkloadRef,
    id=untrusted,
    name=maybe_long,
    project=st.none() | untrusted,
    cluster_id=untrusted,
    phase=st.none() | untrusted,
)


@st.composite
def reports(draw: st.DrawFn) -> Report:
    outcome = draw(st.sampled_from(Outcome))
    category = draw(st.sampled_from(Category)) if outcome is Outcome.DIAGNOSED else None
    return Report(
        outcome=outcome,
        category=category,
        workload=draw(st.none() | workloads),
        headline=draw(maybe_long),
        evidence=tuple(
            draw(st.lists(st.builds(EvidenceLine, text=maybe_long, source=untrusted), max_size=60))
            * draw(st.sampled_from([1, 1, 10, 40]))  # repeated: overflow is common, not rare.
        ),
        recurrence=draw(
            st.none()
            | st.builds(
                Recurrence,
                count=st.none() | st.integers(0, 99),
                lookback=untrusted,
                recurring=st.booleans(),
            )
        ),
        recommendations=tuple(draw(st.lists(maybe_long, max_size=8))),
        missing=tuple(draw(st.lists(maybe_long, max_size=8))),
        candidates=tuple(draw(st.lists(workloads, max_size=4))),
        redactions=draw(st.integers(0, 5)),
    )
