"""The `runai-why` command line's parser: its commands, their flags and their help.

Bad flags are one line on stderr naming the right `--help`, and exit code 2 (`EXIT_USAGE`).
"""

from __future__ import annotations

import argparse
import sys
from importlib import metadata
from pathlib import Path

from bot.app.demo.chat import DEMO_IDENTITY
from diagnosis import Symptom

__all__ = ["EXIT_USAGE", "PROG", "build_parser"]

EXIT_USAGE = 2
PROG = "runai-why"


class _Parser(argparse.ArgumentParser):
    """argparse that reports errors as one line and exit code 2, naming the right --help."""

    subcommands: dict[str, argparse.ArgumentParser]

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"{PROG}: error: {message} (see {self.prog} --help)\n")
        sys.exit(EXIT_USAGE)


def _version() -> str:
    try:
        return metadata.version(PROG)
    except metadata.PackageNotFoundError:  # run from a source tree that is not installed
        return "unknown"


def _process_count(text: str) -> int:
    """`--processes`: a count of at least 1, or `auto` (0: one per usable core)."""
    if text == "auto":
        return 0
    try:
        count = int(text)
    except ValueError:
        count = 0
    if count < 1:
        raise argparse.ArgumentTypeError(f"expected a number of processes or 'auto', not {text!r}")
    return count


def build_parser() -> _Parser:
    """The parser of `runai-why`; `subcommands` holds each command's own, for its errors."""
    parser = _Parser(prog=PROG, description="Why did my Run:ai workload fail?")
    parser.add_argument("--version", action="version", version=f"{PROG} {_version()}")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="log more (-vv: debug)")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    diag = commands.add_parser("diagnose", help="diagnose one workload")
    diag.add_argument("--cluster-id", help="Run:ai cluster UUID (always required)")
    target = diag.add_mutually_exclusive_group()
    target.add_argument("--workload-id", help="workload UUID (option A)")
    target.add_argument("--workload-name", help="workload name, with --project (option B)")
    diag.add_argument("--project", help="Run:ai project name (option B)")
    diag.add_argument(
        "--lookback", default="24h", help="history window, e.g. 24h, 7d (default 24h)"
    )
    diag.add_argument("--symptom", choices=[s.value for s in Symptom], help="a current symptom")
    diag.add_argument(
        "--scenario", type=Path, help="serve this scenario with the built-in simulator"
    )
    diag.add_argument("--json", action="store_true", help="print one JSON object")

    sim = commands.add_parser("sim", help="serve a scenario as a simulated Run:ai control plane")
    sim.add_argument("--scenario", type=Path, required=True)
    sim.add_argument("--port", type=int, default=8600, help="loopback port (default 8600; 0 = any)")
    sim.add_argument(
        "--control",
        action="store_true",
        help="also serve PUT/DELETE /_sim/workloads/<id> to change workloads (loopback only)",
    )

    srv = commands.add_parser(
        "serve",
        help="run the bot for Slack, Teams or both (HTTP on $PORT, or Slack's Socket Mode)",
    )
    srv.add_argument("--host", default="0.0.0.0", help="interface to bind (default all)")  # noqa: S104
    srv.add_argument(
        "--socket-mode",
        action="store_true",
        help="Slack: connect out with SLACK_APP_TOKEN instead of serving /slack/events",
    )
    srv.add_argument(
        "--no-worker",
        action="store_true",
        help="only take requests; `runai-why worker` processes answer them (EMBEDDED_WORKER=0)",
    )
    srv.add_argument(
        "--web-processes",
        type=_process_count,
        default=1,
        metavar="N",
        help="serve HTTP from N processes on PORT (SO_REUSEPORT; 'auto': one per core; "
        "needs REDIS_URL past 1; default 1)",
    )
    srv.add_argument("--reuse-port", action="store_true", help=argparse.SUPPRESS)  # a copy's
    wrk = commands.add_parser(
        "worker",
        help="answer the requests queued in Redis (REDIS_URL); serves only /metrics (METRICS_PORT)",
    )
    wrk.add_argument(
        "--host",
        default="0.0.0.0",  # noqa: S104
        help="interface for /metrics on METRICS_PORT (default all)",
    )
    wrk.add_argument(
        "--processes",
        type=_process_count,
        default=0,
        metavar="N",
        help="worker processes, each with its own event loop (default 'auto': one per core)",
    )

    demo = commands.add_parser(
        "demo", help="chat with the bot in the terminal, against the bundled simulated cluster"
    )
    demo.add_argument("--scenario", type=Path, help="another scenario file instead of the demo")
    demo.add_argument(
        "--script",
        metavar="FILE",
        help="replay the lines of FILE ('-' = standard input) instead of chatting",
    )
    demo.add_argument(
        "--all", action="store_true", help="diagnose every workload the scenario lists and exit"
    )
    demo.add_argument("--json", action="store_true", help="with --all: one JSON object per line")
    demo.add_argument(
        "--as",
        dest="as_email",
        metavar="EMAIL",
        default=DEMO_IDENTITY,
        help=f"ask as this Run:ai user (default {DEMO_IDENTITY}, who may not read project nlp)",
    )
    parser.subcommands = dict(commands.choices)
    return parser
