"""How long an answer's headline (its verdict, right under line one) may run: `HEADLINE_MAX`."""

from __future__ import annotations

__all__ = ["HEADLINE_MAX"]

#: Characters. The headline is read at a glance in an incident channel: 200 characters is two
#: lines of a Slack message at a laptop's width, and it leaves room in Teams' card summary
#: (`<label> · <workload> — <headline>`, cut at 300: `bot.teams.render.card_parts.SUMMARY_MAX`)
#: for the longest label and a long workload name, so no notification cuts it. Detail goes
#: into the evidence lines. Held over every bundled scenario (`tests/test_scenario_library.py`)
#: and the tests that write headlines of their own; upstream names of any length may still
#: make a real one longer, which the renderers cut, never the engine.
HEADLINE_MAX = 200
