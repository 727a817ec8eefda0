"""What a Teams activity must be to be inert: valid cards, no live markup, only our URLs."""

from __future__ import annotations

import re
from typing import Any

from bot.render.actions import runai_workload_url
from bot.teams.render.card_text import ACTIVITY_MAX_BYTES, json_bytes
from diagnosis import WorkloadRef
from tests.bot.teams.adaptive import check_activity, elements, runs, texts
from tests.unicode_classes import category_class

RUNAI = "https://acme.run.ai"
CHART = "https://bot.example.com/teams/charts/x.png?exp=1&sig=y"
#: What could take effect in Teams markdown, were it to survive: tags and mentions, entities,
#: links and autolinks, tables, strikethrough.
LIVE = re.compile(r"[<>|~]|\]\s*[(\[:]|://|&#?[0-9A-Za-z]+;|(?i:\bwww\.|\bmailto:)")
#: A line that would start a list, heading, quote, setext heading or code block.
LINE_START = re.compile(
    r"^[ \t]*(?:[-+*](?:\s|$)|#{1,6}(?:\s|$)|[0-9]{1,9}[.)](?:\s|$)|[-=*_]{2,}\s*$)|^[ \t]{4}"
)
OUR_BOLD = re.compile(r"\*\*[^*]+\*\*")
#: A code span: markdown shows what is inside it as written (`*` included).
CODE_SPAN = re.compile(r"`[^`\n]+`")


def unsafe(text: str) -> set[str]:
    found = category_class(frozenset({"Cc", "Cf", "Cs"}), but="\n").findall(text)
    return {f"U+{ord(c):04X}" for c in found}


def assert_inert(
    activities: list[dict[str, Any]],
    workload: WorkloadRef | None = None,
    *,
    runai_url: str = RUNAI,
    chart_url: str = CHART,
) -> None:
    """Valid 1.5 cards within the size limit; no live markup; only our URLs.

    The only links: "Open in Run:ai" on `workload` (from `runai_url`), and the chart image.
    """
    assert activities
    for activity in activities:
        assert check_activity(activity) == [], check_activity(activity)[:5]
        assert json_bytes(activity) <= ACTIVITY_MAX_BYTES
        for text in texts(activity, markdown=True):
            assert not LIVE.search(text), LIVE.search(text)
            outside = CODE_SPAN.sub("", OUR_BOLD.sub("", text))
            assert "*" not in outside, text[:300]  # only our own bold, or in a code span
            assert not unsafe(text), unsafe(text)
            for line in text.split("\n"):
                assert not LINE_START.match(line), line[:100]
        for run in runs(activity):  # no markdown is read: a command shows as written
            assert not unsafe(run["text"]), unsafe(run["text"])
            if run.get("fontType") != "Monospace":  # the text around a command: inert
                assert not LIVE.search(run["text"]), LIVE.search(run["text"])
        if "attachments" not in activity:
            continue
        card = activity["attachments"][0]["content"]
        urls = [a["url"] for a in card.get("actions", []) if "url" in a]
        w = workload
        expected = runai_workload_url(runai_url, w.cluster_id, w.id) if w is not None else None
        assert urls in ([], [expected])
        assert all(e["url"] == chart_url for e in elements(activity) if e["type"] == "Image")
