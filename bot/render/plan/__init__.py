"""The plan of a report, the same on every platform: its lines, its sections, what overflows.

`lines` picks the few lines an answer shows (and every line behind it); `sections` puts the
report's lists in their order with their names; `overflow` decides, given what a platform
measures, which items fit in the answer, which go to later messages and which are left out.
Slack, Teams and the console only translate the sections into their format and enforce their
own limits: none of them chooses a line, a section, an order or a cut.
"""

from bot.render.plan.lines import (
    MAX_SHOWN,
    LineKind,
    Plan,
    PlanLine,
    answer,
    everything,
    sources_text,
)

__all__ = ["MAX_SHOWN", "LineKind", "Plan", "PlanLine", "answer", "everything", "sources_text"]
