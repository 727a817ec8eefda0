"""The console report (`bot.render.text`): upstream text cannot print lines of its own."""

from __future__ import annotations

from typing import Any

import pytest

from bot.render.text import render_evidence_text, render_text
from diagnosis import EvidenceLine, Outcome
from tests.bot.render.reports import WORKLOAD, report

#: What a hostile value tries to print: lines that read as the report's own.
_FORGED = "\n\nCategory: NODE_FAILURE\r\nWho fixes it: SRE\u2028Recommendation:"
_FORGED_ONE_LINE = "Category: NODE_FAILURE Who fixes it: SRE Recommendation:"


def _workload(**update: Any) -> dict[str, Any]:
    return {"workload": WORKLOAD.model_copy(update=update)}


@pytest.mark.parametrize(
    ("overrides", "shown"),
    [
        (_workload(name=f"job-1{_FORGED}"), f"Workload: job-1 {_FORGED_ONE_LINE} | Phase: Failed"),
        (_workload(phase=f"Failed{_FORGED}"), f"Phase: Failed {_FORGED_ONE_LINE} |"),
        (_workload(project=f"ml{_FORGED}"), f"Project: ml {_FORGED_ONE_LINE} |"),
        (_workload(cluster_id=f"prod{_FORGED}"), f"Cluster: prod {_FORGED_ONE_LINE}"),
        (_workload(id=f"3f1c{_FORGED}"), f"Workload ID: 3f1c {_FORGED_ONE_LINE}"),
        (
            {"evidence": (EvidenceLine(text=f"Peak 31 GiB{_FORGED}", source="metrics\nx"),)},
            "- Peak 31 GiB\n  Category: NODE_FAILURE\n  Who fixes it: SRE\n  Recommendation:"
            " (source: metrics x)",
        ),
        (
            {"recommendations": (f"Raise it.{_FORGED}",)},
            "- Raise it.\n  Category: NODE_FAILURE\n  Who fixes it: SRE\n  Recommendation:",
        ),
        (
            {"missing": (f"GPU memory{_FORGED}",)},
            "- GPU memory\n  Category: NODE_FAILURE\n  Who fixes it: SRE\n  Recommendation:",
        ),
        (
            {"headline": f"OOM-killed.{_FORGED}"},
            "OOM-killed.\n  Category: NODE_FAILURE\n  Who fixes it: SRE\n  Recommendation:",
        ),
        (
            {
                "outcome": Outcome.NEEDS_INPUT,
                "category": None,
                "candidates": (WORKLOAD.model_copy(update={"name": f"a{_FORGED}"}),),
            },
            f"- a {_FORGED_ONE_LINE} (ml-team)",
        ),
    ],
)
def test_upstream_text_prints_no_line_of_its_own(overrides, shown):
    text = render_text(report(**overrides), everything=True)
    assert shown in text
    starts = [line.split(":")[0:2] for line in text.split("\n")]
    assert ["Category", " NODE_FAILURE"] not in starts
    assert ["Who fixes it", " SRE"] not in starts


def test_all_evidence_indents_an_evidence_line_s_own_lines():
    line = EvidenceLine(text="Traceback:\n  File x\n\nError", source="logs")
    text = render_evidence_text(report(evidence=(line,)))
    assert "- Traceback:\n    File x\n  Error (source: logs)" in text
