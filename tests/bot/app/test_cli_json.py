"""`diagnose --json` carries what the text shows: headline, owner, sub-cause, policy, redactions."""

from __future__ import annotations

import json

import pytest

from bot.app.cli import main
from bot.app.demo.scenarios import bundled_paths
from diagnosis.quantity import format_bytes

SCENARIOS = {p.stem: p for p in bundled_paths()}

CASES = [
    # scenario, subcause, policy, redactions > 0
    pytest.param("image-pull-dns", "network", None, False, id="image-pull-dns"),
    pytest.param("t2-image-pull-not-found", "not-found", None, False, id="t2-not-found"),
    pytest.param("policy-idle-timeout", None, "idle-timeout", False, id="policy-idle"),
    pytest.param("policy-manual-stop", None, "manual-stop", False, id="policy-manual"),
    pytest.param("t2-crash-secret-in-log", None, None, True, id="secret-in-log"),
    pytest.param("oom-killed", None, None, False, id="oom"),
    pytest.param("t2-oom-init", None, None, False, id="oom-init"),
]


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch, tmp_path):
    for name in ("RUNAI_URL", "RUNAI_CLIENT_ID", "RUNAI_CLIENT_SECRET"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)


def _run(capsys, scenario: str, *, as_json: bool) -> str:
    data = json.loads(SCENARIOS[scenario].read_text())
    argv = [
        "diagnose",
        "--scenario",
        str(SCENARIOS[scenario]),
        "--cluster-id",
        data["clusters"][0]["uuid"],
        "--workload-id",
        data["workloads"][0]["workload"]["id"],
    ]
    assert main([*argv, "--json"] if as_json else argv) == 0
    return capsys.readouterr().out


@pytest.mark.e2e
@pytest.mark.parametrize(("scenario", "subcause", "policy", "redacted"), CASES)
def test_json_carries_what_the_text_shows(capsys, scenario, subcause, policy, redacted):
    data = json.loads(_run(capsys, scenario, as_json=True))
    text = _run(capsys, scenario, as_json=False)
    assert data["outcome"] == "diagnosed"
    assert data["headline"]
    assert data["headline"] in text
    assert f"Who fixes it: {data['recovery_owner']}" in text.splitlines()
    assert (data["subcause"], data["policy"]) == (subcause, policy)
    assert (data["redactions"] > 0) is redacted
    note = f"({data['redactions']} sensitive value(s) redacted)"
    assert (note in text) is redacted
    if data["memory"] and data["memory"]["limit_bytes"]:
        limit = format_bytes(data["memory"]["limit_bytes"])
        assert limit in data["headline"]
        assert all(limit in r for r in data["recommendations"][:1])
