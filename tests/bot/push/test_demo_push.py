"""`runai-why demo` subscribes its console and makes a demo workload fail: the push, shown."""

from __future__ import annotations

import io

import pytest

from bot.app.cli import main


def test_the_tour_watches_a_project_and_shows_its_failure_unasked(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    tour = out[out.index("you> watch ml-team on prod-a") :]
    assert "alice@acme.ai subscribed this channel to failures of project ml-team" in tour
    first = tour.index("(posted to the channel, unasked)\nCategory: CRASH_APP_ERROR")
    again = tour.index("(posted in the thread of [1], unasked)\nCategory: CRASH_APP_ERROR")
    assert first < again
    assert "(2nd time in 1 min)" in tour[again:]
    assert "- project ml-team on prod-a (by alice@acme.ai, " in tour


def test_fail_names_only_demo_workloads(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr("sys.stdin", io.StringIO("/fail no-such-job\n"))
    assert main(["demo", "--script", "-"]) == 0
    assert "runai-why> (demo) No demo workload is named 'no-such-job'." in capsys.readouterr().out
