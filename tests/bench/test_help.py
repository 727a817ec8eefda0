"""`python3 dev.py bench --help` says what the benchmark measures in its own words."""

from __future__ import annotations

import re

import pytest

from bench.__main__ import SCENARIOS, main


def test_help_names_every_scenario_and_no_tracker_number(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    with pytest.raises(SystemExit) as raised:
        main(["--help"])
    out = capsys.readouterr().out
    assert raised.value.code == 0
    assert all(name in out for name in SCENARIOS)
    assert "--keep DIR" in out
    assert not re.search(r"issue|#\d", out, flags=re.IGNORECASE)
