"""The `runai-why` CLI contract: flags, exit codes, JSON shape, clear errors."""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bot.app import cli
from bot.app.cli import main
from bot.app.demo.scenarios import bundled_paths
from bot.authz import Authorizer
from bot.config import Settings
from tests.terminal import read_until

SCENARIOS = {p.stem: p for p in bundled_paths()}
CLUSTER = "71f69d83-ba66-4822-adf5-55ce55efd210"
JSON_KEYS = {
    "outcome",
    "category",
    "workload",
    "evidence",
    "recurrence",
    "memory",
    "recommendations",
    "missing",
    "question",
    # added by issue 9 (keys are only ever added):
    "headline",
    "recovery_owner",
    "subcause",
    "policy",
    "redactions",
    "candidates",
    "details",
    # added by issue 23: the Pending and preemption answers (null for other outcomes)
    "pending",
    "preemption",
    # added by issue 24: one line per fact with its sources, the gaps that matter
    "facts",
    "missing_deciding",
    "changes",
}


SETTINGS = (
    "RUNAI_URL",
    "RUNAI_CLIENT_ID",
    "RUNAI_CLIENT_SECRET",
    "SLACK_BOT_TOKEN",
    "SLACK_SIGNING_SECRET",
    "SLACK_APP_TOKEN",
    "REDIS_URL",
    "PORT",
    "TEAMS_APP_ID",
    "TEAMS_APP_PASSWORD",
    "TEAMS_TENANT_ID",
)
ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch, tmp_path):
    """No setting from the developer's shell or a .env file leaks into these tests."""
    for name in SETTINGS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)


def _scenario_cluster(name: str) -> str:
    return json.loads(SCENARIOS[name].read_text())["clusters"][0]["uuid"]


def _first_workload(name: str) -> str:
    return json.loads(SCENARIOS[name].read_text())["workloads"][0]["workload"]["id"]


@pytest.mark.e2e
def test_diagnose_json_contract(capsys):
    """--json prints exactly one object with the documented keys."""
    code = main(
        [
            "diagnose",
            "--scenario",
            str(SCENARIOS["oom-killed"]),
            "--cluster-id",
            _scenario_cluster("oom-killed"),
            "--workload-id",
            _first_workload("oom-killed"),
            "--json",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    data = json.loads(out)
    assert set(data) == JSON_KEYS
    assert data["outcome"] == "diagnosed"
    assert data["category"] == "OOM_KILLED"
    workload = {"id", "name", "project", "cluster_id", "phase", "namespace", "kind"}
    assert set(data["workload"]) == workload
    assert data["workload"]["kind"] == "Training"
    assert set(data["recurrence"]) == {"count", "lookback", "recurring"}
    memory = {"request_bytes", "limit_bytes", "peak_bytes", "container", "samples", "killed_at"}
    memory.add("configured_read")
    assert set(data["memory"]) == memory
    assert data["memory"]["killed_at"] is not None  # the chart's kill marker, as JSON shows it
    assert out.count("\n") == 1


@pytest.mark.e2e
def test_diagnose_text_puts_category_first(capsys):
    code = main(
        [
            "diagnose",
            "--scenario",
            str(SCENARIOS["oom-killed"]),
            "--cluster-id",
            _scenario_cluster("oom-killed"),
            "--workload-id",
            _first_workload("oom-killed"),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert out.splitlines()[0] == "Category: OOM_KILLED"
    assert "Who fixes it: User: raise memory; administrator: node memory" in out.splitlines()
    assert "(source: get_workload_status)" in out


@pytest.mark.e2e
def test_missing_identifiers_are_an_outcome_not_an_error(capsys):
    code = main(
        ["diagnose", "--scenario", str(SCENARIOS["oom-killed"]), "--workload-name", "x", "--json"]
    )
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    assert data["outcome"] == "needs_input"
    assert "cluster" in data["question"].lower()


@pytest.mark.e2e
@pytest.mark.parametrize("scenario", ["name-tie", "name-near-match"])
def test_a_question_back_says_how_to_answer_it_on_the_command_line(scenario: str, capsys):
    """No "reply" where no reply is possible: the CLI names the flag and lists the IDs."""
    data = json.loads(SCENARIOS[scenario].read_text(encoding="utf-8"))
    asked = data["workloads"][0]["workload"]
    name = "train-bret" if scenario == "name-near-match" else asked["name"]
    argv = ["diagnose", "--scenario", str(SCENARIOS[scenario])]
    argv += ["--cluster-id", data["clusters"][0]["uuid"], "--workload-name", name]
    assert main([*argv, "--project", asked["projectName"]]) == 0
    out = capsys.readouterr().out
    assert "Candidates (diagnose one with --workload-id ID):" in out
    assert "workload ID " in out  # each candidate's, in full
    assert "reply" not in out.lower()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["diagnose", "--bogus"], "unrecognized arguments: --bogus"),
        (
            ["diagnose", "--cluster-id", "prod-a", "--workload-id", CLUSTER],
            "cluster ID 'prod-a' is not a UUID",
        ),
        (
            ["diagnose", "--cluster-id", CLUSTER, "--workload-id", "abc"],
            "workload ID 'abc' is not a UUID",
        ),
        (
            ["diagnose", "--workload-id", CLUSTER, "--workload-name", "x"],
            "not allowed with argument",
        ),
        (
            ["diagnose", "--cluster-id", CLUSTER, "--workload-id", CLUSTER, "--lookback", "soon"],
            "lookback 'soon'",
        ),
        (["diagnose", "--symptom", "sad"], "invalid choice"),
        (
            [
                "diagnose",
                "--cluster-id",
                CLUSTER,
                "--workload-id",
                CLUSTER,
                "--scenario",
                "/nope.json",
            ],
            "/nope.json",
        ),
        (
            ["diagnose", "--cluster-id", CLUSTER, "--workload-id", CLUSTER],
            "set RUNAI_URL, RUNAI_CLIENT_ID, RUNAI_CLIENT_SECRET",
        ),
        ([], "the following arguments are required"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(argv, message, capsys):
    with pytest.raises(SystemExit) as raised:
        raise SystemExit(main(argv))
    err = capsys.readouterr().err
    assert raised.value.code == 2
    assert message in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_unreadable_scenario_is_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    code = main(
        ["diagnose", "--cluster-id", CLUSTER, "--workload-id", CLUSTER, "--scenario", str(bad)]
    )
    assert code == 2
    assert "bad.json" in capsys.readouterr().err


def test_unreachable_control_plane_names_the_url(monkeypatch, capsys):
    """A control plane that is down is a clear message naming the URL, not a traceback."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("RUNAI_URL", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("RUNAI_CLIENT_ID", "svc")
    monkeypatch.setenv("RUNAI_CLIENT_SECRET", "s3cret-value")
    monkeypatch.setenv("RUNAI_RETRIES", "0")
    code = main(["diagnose", "--cluster-id", CLUSTER, "--workload-id", CLUSTER])
    err = capsys.readouterr().err
    assert code == 3
    assert f"127.0.0.1:{port}" in err
    assert "Traceback" not in err
    assert "s3cret-value" not in err


def test_diagnose_reads_the_settings_once(monkeypatch, capsys):
    """The command builds one `Settings` and passes it down (checked, then used)."""
    built: list[Settings] = []

    class Counted(Settings):
        def __init__(self, **values: Any) -> None:
            super().__init__(**values)
            built.append(self)

    monkeypatch.setattr(cli, "Settings", Counted)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("RUNAI_URL", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("RUNAI_CLIENT_ID", "svc")
    monkeypatch.setenv("RUNAI_CLIENT_SECRET", "s3cret-value")
    monkeypatch.setenv("RUNAI_RETRIES", "0")
    code = main(["diagnose", "--cluster-id", CLUSTER, "--workload-id", CLUSTER])
    assert code == 3  # it got as far as the (closed) control plane
    assert f"127.0.0.1:{port}" in capsys.readouterr().err
    assert len(built) == 1


@pytest.mark.e2e
def test_demo_all_prints_a_report_per_demo_workload(capsys):
    """`demo --all` diagnoses every workload the demo scenario lists, category first."""
    assert main(["demo", "--all", "--as", "bob@acme.ai"]) == 0
    reports = capsys.readouterr().out.split("─" * 72)
    assert len(reports) == 13
    first_lines = ("Category: ", "Outcome: ", "PENDING · ", "PREEMPTED · ")
    assert all(r.strip().splitlines()[0].startswith(first_lines) for r in reports)
    assert any("t5-distill" in r for r in reports)


@pytest.mark.e2e
@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_demo_all_shows_only_what_the_asker_may_read(capsys, as_json: bool):  # noqa: FBT001
    """As alice (the default), project nlp is refused, as in the chat: nothing of it shows."""
    assert main(["demo", "--all", *(["--json"] if as_json else [])]) == 0
    out = capsys.readouterr().out
    denial = (
        "You don't have read access to workloads in project nlp on prod-a in Run:ai; "
        "ask your Run:ai administrator."
    )
    if as_json:
        answers = [json.loads(line) for line in out.splitlines()]
        assert len(answers) == 13
        assert {"outcome": "authz_denied", "headline": denial} in answers
        assert all((a.get("workload") or {}).get("project") != "nlp" for a in answers)
    else:
        assert f"(only you) {denial}" in out
    assert "t5-distill" not in out


@pytest.mark.e2e
def test_demo_without_a_terminal_plays_the_guided_tour(capsys, monkeypatch):
    """Not attached to a terminal, the demo replays its bundled conversation."""
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "you> why did training-job-42 in ml-team fail?" in out
    assert "runai-why> Which Run:ai cluster is it on?" in out
    assert "Category: OOM_KILLED" in out
    assert "Category: IMAGE_PULL_FAILED" in out
    assert "PREEMPTED · RECLAIM_FAIR_SHARE" in out
    # alice reads vision, not its department research, whose position decides too.
    assert "PENDING · UNKNOWN" in out
    assert "Node pool default has 2 of 56 GPUs free" in out
    assert "whether department research is too is not known" in out
    assert "asking as alice@acme.ai" in out  # the default --as, who may not read nlp:
    assert (
        "runai-why> (only you) No project called nlp on prod-a is readable by you. If it is "
        "the right name, ask your Run:ai administrator for read access."
    ) in out
    assert "t5-distill ·" not in out  # nothing of it was shown
    # nlp's workload that reclaimed ml-team's GPUs is not named to her, nor its project
    assert "serve-llama-70b" not in out
    assert "reclaimed" not in out.lower() or "a workload in another project" in out


@pytest.mark.e2e
@pytest.mark.parametrize(
    ("email", "shown"),
    [
        pytest.param("alice@acme.ai", False, id="alice-may-not-read-nlp"),
        pytest.param("bob@acme.ai", True, id="bob-reads-every-project"),
    ],
)
def test_demo_asks_as_the_given_identity(capsys, monkeypatch, email: str, shown: object):
    monkeypatch.setattr(
        "sys.stdin", io.StringIO("is t5-distill in nlp crashlooping on cluster prod-a?\n")
    )
    assert main(["demo", "--as", email, "--script", "-"]) == 0
    out = capsys.readouterr().out
    assert ("Category: " in out) is shown
    assert ("is readable by you" in out) is not shown


@pytest.mark.e2e
def test_demo_script_from_stdin(capsys, monkeypatch):
    monkeypatch.setattr(
        "sys.stdin", io.StringIO("help\ncluster=prod-a workload=eval-harness project=ml-team\n")
    )
    assert main(["demo", "--script", "-"]) == 0
    out = capsys.readouterr().out
    assert "I explain why a Run:ai workload failed" in out
    assert "Category: CRASH_APP_ERROR" in out


@pytest.mark.e2e
def test_the_demo_stops_its_access_reads_before_its_clients_close(capsys, monkeypatch):
    """A read of someone's access started ahead must not outlive the demo's Run:ai client.

    It would fail on the closed client and print "Task exception was never retrieved".
    """
    made: list[Authorizer] = []
    closed: list[Authorizer] = []

    class Recording(Authorizer):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            made.append(self)

        async def aclose(self) -> None:
            closed.append(self)
            await super().aclose()

    monkeypatch.setattr("bot.app.demo.chat.Authorizer", Recording)
    monkeypatch.setattr("sys.stdin", io.StringIO("why did training-job-42 fail on ml-team\n"))
    assert main(["demo", "--script", "-"]) == 0
    assert made
    assert closed == made
    assert "Task exception was never retrieved" not in capsys.readouterr().err


def test_malformed_runai_url_is_a_configuration_error(monkeypatch, capsys):
    monkeypatch.setenv("RUNAI_URL", "http://[::1")
    monkeypatch.setenv("RUNAI_CLIENT_ID", "svc")
    monkeypatch.setenv("RUNAI_CLIENT_SECRET", "s3cret-value")
    code = main(["diagnose", "--cluster-id", CLUSTER, "--workload-id", CLUSTER])
    err = capsys.readouterr().err
    assert code == 2
    assert "RUNAI_URL 'http://[::1' is not a valid URL" in err
    assert "Traceback" not in err


def _run(argv: list[str], capsys) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as raised:
        raise SystemExit(main(argv))
    captured = capsys.readouterr()
    return int(raised.value.code or 0), captured.out, captured.err


def test_version(capsys):
    code, out, _ = _run(["--version"], capsys)
    assert code == 0
    assert out.strip() == "runai-why 0.1.0"


@pytest.mark.parametrize(
    ("argv", "hint"),
    [
        ([], "(see runai-why --help)"),
        (["frobnicate"], "(see runai-why --help)"),
        (["diagnose", "--colour"], "(see runai-why diagnose --help)"),
        (["serve", "--scenario", "x.json"], "(see runai-why serve --help)"),
    ],
)
def test_error_hints_name_the_real_command_once(argv, hint, capsys):
    code, _, err = _run(argv, capsys)
    assert code == 2
    assert err.rstrip().endswith(hint)
    assert "runai-why runai-why" not in err


@pytest.mark.parametrize(
    ("argv", "says", "never"),
    [
        (["--help"], "run the bot for Slack, Teams or both", "the Slack bot"),
        (["serve", "--help"], "Slack: connect out with SLACK_APP_TOKEN", "the Slack bot"),
        (["worker", "--help"], "interface for /metrics on METRICS_PORT", "without serving"),
        (["demo", "--help"], "--script FILE replay the lines of FILE", "--script SCRIPT"),
    ],
)
def test_help_says_what_each_command_does(argv, says, never, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # one help entry a line, however wide the terminal
    code, out, _ = _run(argv, capsys)
    assert code == 0
    assert says in " ".join(out.split())
    assert never not in out


def test_serve_lists_every_missing_setting_at_once_and_no_flag_it_lacks(capsys):
    code, _, err = _run(["serve"], capsys)
    assert code == 2
    assert "configure Slack (SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET), Microsoft Teams " in err
    assert "set RUNAI_URL, RUNAI_CLIENT_ID, RUNAI_CLIENT_SECRET (missing" in err
    assert "--scenario" not in err
    assert len(err.strip().splitlines()) == 1


def test_serve_refuses_the_placeholders_of_env_example(tmp_path, capsys):
    shutil.copy(ROOT / "deploy" / "env.example", tmp_path / ".env")
    code, _, err = _run(["serve", "--socket-mode"], capsys)
    assert code == 2
    listed = err.split("set ", 1)[1].split(" (missing", 1)[0].split(", ")
    assert listed == [
        "SLACK_BOT_TOKEN",
        "SLACK_SIGNING_SECRET",
        "SLACK_APP_TOKEN",
        "RUNAI_URL",
        "RUNAI_CLIENT_SECRET",
    ]


def test_serve_names_malformed_settings_with_the_missing_ones(monkeypatch, capsys):
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxp-a-user-token")
    monkeypatch.setenv("RUNAI_URL", "ftp://runai")
    code, _, err = _run(["serve"], capsys)
    assert code == 2
    assert "set SLACK_SIGNING_SECRET, RUNAI_CLIENT_ID, RUNAI_CLIENT_SECRET" in err
    assert "SLACK_BOT_TOKEN must be a bot token" in err
    assert "RUNAI_URL must look like https://acme.run.ai" in err
    assert "xoxp-a-user-token" not in err


def test_worker_without_redis_says_the_queue_lives_in_serve(monkeypatch, capsys):
    monkeypatch.delenv("REDIS_URL", raising=False)
    code, _, err = _run(["worker"], capsys)
    assert code == 2
    assert "set REDIS_URL for `runai-why worker`" in err
    assert len(err.strip().splitlines()) == 1


def test_a_setting_of_the_wrong_type_is_one_line_naming_it(monkeypatch, capsys):
    monkeypatch.setenv("PORT", "eighty")
    code, _, err = _run(["serve"], capsys)
    assert code == 2
    assert "invalid settings: PORT" in err
    assert "eighty" not in err
    assert "Traceback" not in err


@pytest.mark.e2e
def test_ctrl_c_leaves_the_demo_cleanly(tmp_path):
    """At the prompt of a real terminal, Ctrl-C exits 130 at once, with no traceback."""
    terminal, child = os.openpty()
    # A shell starts a program in the foreground with SIGINT at its default; the test runner
    # may itself have been started with SIGINT ignored (`cmd &` in a script), which a child
    # inherits, and Python then installs no KeyboardInterrupt for it.
    code = (
        "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
        "from bot.app.cli import main; sys.exit(main(['demo']))"
    )
    process = subprocess.Popen(  # noqa: S603 - this interpreter, a fixed command
        [sys.executable, "-c", code],
        stdin=child,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
    )
    os.close(child)
    try:
        assert process.stdout is not None
        read_until(process.stdout.fileno(), b"you> ", timeout=60)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(terminal)
    assert process.returncode == 130
    assert b"Traceback" not in err, err.decode(errors="replace")
