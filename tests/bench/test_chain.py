"""`bench.chain`: the chain of a cold and a warm OOM diagnosis (structure only, never time)."""

from __future__ import annotations

from bench.chain import chain_lines, main, measure


async def test_a_cold_diagnosis_waits_one_level_more_than_a_warm_one():
    found = await measure(latency_ms=100)  # long enough that concurrent calls overlap
    assert [(run, levels) for run, levels, _ in found] == [("cold", 4), ("warm", 3)]
    lines = chain_lines(found, latency_ms=100)
    assert lines[1].startswith("chain: warm OOM diagnosis (Tier 2, 100 ms per call): 3 levels")
    assert "floor 0.300 s" in lines[1]


def test_no_levels_has_no_ratio():
    [line] = chain_lines([("warm", 0, 0.1)])
    assert "0 levels, floor 0.000 s" in line
    assert "(nanx)" in line


def test_the_command_prints_a_line_per_run(capsys, monkeypatch):
    monkeypatch.setattr("sys.argv", ["bench.chain", "10"])
    assert main() == 0
    out = [line for line in capsys.readouterr().out.splitlines() if line.startswith("chain:")]
    assert [line.split(" OOM")[0] for line in out] == ["chain: cold", "chain: warm"]
