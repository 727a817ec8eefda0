"""The `runai-why` command line: `diagnose`, `sim`, `serve`, `worker` and `demo`.

Exit codes: 0 a report was printed (whatever its outcome), 2 bad input (flags, IDs,
scenario file, configuration), 3 the control plane failed or could not be reached, 130
interrupted (Ctrl-C), which leaves quietly.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from datetime import datetime
from importlib import metadata
from pathlib import Path

import structlog
from pydantic import ValidationError

from bot.app.backends import Backends, from_settings, simulated
from bot.app.demo.chat import DEMO_IDENTITY, bundled_script, diagnose_all, run_chat
from bot.app.demo.console import PRIVATE
from bot.app.demo.scenarios import bundled_scenario
from bot.app.processes import Supervisor, follow_supervisor, usable_cores, yield_to_acknowledgements
from bot.app.serving import run_server, run_worker
from bot.config import ConfigError, Settings, invalid_settings
from bot.ops.logging import configure_logging
from bot.ops.observe import begin_request
from bot.render.text import render_text, sanitize
from diagnosis import (
    DiagnosisError,
    DiagnosisRequest,
    InvalidRequest,
    Report,
    Symptom,
    UpstreamError,
    diagnose,
    parse_lookback,
)
from runai_sim.scenario import Scenario, ScenarioError
from runai_sim.server import run as run_simulator

__all__ = ["main"]

EXIT_OK, EXIT_USAGE, EXIT_UPSTREAM, EXIT_INTERRUPTED = 0, 2, 3, 130
PROG = "runai-why"
SIMULATOR_HINT = " (or pass --scenario FILE to use the simulator)"


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


def _parser() -> _Parser:
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


def _backends(
    scenario: Scenario | None, settings: Settings | None
) -> AbstractAsyncContextManager[Backends]:
    """The simulator when a scenario is given, else the control plane of the settings."""
    if scenario is not None:
        return simulated(scenario)
    assert settings is not None  # noqa: S101 - built by `_diagnose` whenever there is no scenario
    return from_settings(settings)


def _print(report: Report, lookback: str, *, as_json: bool) -> None:
    if as_json:
        print(json.dumps(report.to_json_dict(lookback), ensure_ascii=False))
    else:
        print(render_text(report, everything=True))


async def _diagnose(args: argparse.Namespace) -> int:
    request = DiagnosisRequest(
        cluster_id=args.cluster_id,
        workload_id=args.workload_id,
        workload_name=args.workload_name,
        project=args.project,
        lookback=parse_lookback(args.lookback),
        symptom=Symptom(args.symptom) if args.symptom else None,
    )
    scenario = Scenario.load(args.scenario) if args.scenario else None
    now: datetime | None = scenario.now if scenario else None
    settings = Settings() if scenario is None else None  # built once, for the whole command
    if settings is not None:
        try:
            settings.check(runai=True)
        except ConfigError as error:  # only `diagnose` has --scenario to offer instead
            raise ConfigError(f"{error}{SIMULATOR_HINT}") from None
    begin_request()
    async with _backends(scenario, settings) as up:
        report = await diagnose(request, runai=up.runai, kube=up.kube, now=now)
    _print(report, request.lookback_label(), as_json=args.json)
    return EXIT_OK


async def _demo(args: argparse.Namespace) -> int:
    scenario = Scenario.load(args.scenario) if args.scenario else bundled_scenario("demo")
    if not args.all:
        script: list[str] | None = None
        if args.script == "-":
            script = sys.stdin.read().splitlines()
        elif args.script:
            text = await asyncio.to_thread(Path(args.script).read_text, encoding="utf-8")
            script = text.splitlines()
        elif not sys.stdin.isatty():
            script = bundled_script()
        await run_chat(
            scenario,
            script=script,
            interactive=sys.stdin.isatty(),
            write=_write,
            as_email=args.as_email,
        )
        return EXIT_OK
    index = 0
    async for request, answer in diagnose_all(scenario, as_email=args.as_email):
        if not args.json and index:
            print("\n" + "─" * 72 + "\n")
        index += 1
        if isinstance(answer, str):  # refused: what the chat tells the asker privately
            denied = {"outcome": "authz_denied", "headline": answer}
            print(json.dumps(denied, ensure_ascii=False) if args.json else f"{PRIVATE}{answer}")
            continue
        _print(answer, request.lookback_label(), as_json=args.json)
    return EXIT_OK


def _serve(args: argparse.Namespace) -> int:
    settings = Settings()
    if args.no_worker:
        queue = settings.queue.model_copy(update={"embedded_worker": False})
        settings = settings.model_copy(update={"queue": queue})
    configure_logging(settings.log.level, settings.log.format)
    count = args.web_processes or usable_cores()
    if count > 1:
        if args.socket_mode:
            raise ConfigError("--web-processes serves HTTP; in Socket Mode run one process")
        _shared_queue(settings, "--web-processes")
        copy = ["serve", "--host", args.host, "--web-processes", "1", "--reuse-port"]
        return Supervisor(
            "web",
            copy + (["--no-worker"] if args.no_worker else []),
            count,
            metrics_port=settings.metrics.port,
            host=args.host,
            grace_s=settings.queue.shutdown_grace_s,
            web_port=settings.http.port,
        ).run()
    follow_supervisor()
    run_server(settings, host=args.host, socket_mode=args.socket_mode, reuse_port=args.reuse_port)
    return EXIT_OK


def _worker(args: argparse.Namespace) -> int:
    settings = Settings()
    configure_logging(settings.log.level, settings.log.format)
    count = args.processes or usable_cores()
    if count > 1 and settings.redis.url is not None:  # without it, `run_worker` says why not
        return Supervisor(
            "worker",
            ["worker", "--host", args.host, "--processes", "1"],
            count,
            metrics_port=settings.metrics.port,
            host=args.host,
            grace_s=settings.queue.shutdown_grace_s,
        ).run()
    follow_supervisor()
    if settings.redis.url is not None:  # a worker that runs (without, `run_worker` refuses)
        yield_to_acknowledgements()
    run_worker(settings, host=args.host)
    return EXIT_OK


def _shared_queue(settings: Settings, flag: str) -> None:
    if settings.redis.url is None:
        raise ConfigError(
            f"set REDIS_URL for {flag} past 1: the processes share the queue and the "
            "conversations through Redis"
        )


def _write(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit code."""
    try:
        return _main(argv)
    except KeyboardInterrupt:
        sys.stderr.write("\n")  # Ctrl-C: leave quietly, on a fresh line
        return EXIT_INTERRUPTED


def _main(argv: Sequence[str] | None) -> int:
    parser = _parser()
    args, extra = parser.parse_known_args(argv)
    if extra:  # say it in the words of the subcommand that was given them
        command = parser.subcommands.get(args.command, parser)
        command.error(f"unrecognized arguments: {' '.join(extra)}")
    level = ("WARNING", "INFO", "DEBUG")[min(args.verbose, 2)]
    configure_logging(level, "console")
    log = structlog.get_logger(__name__)
    try:
        if args.command == "sim":
            run_simulator(args.scenario, port=args.port, control=args.control)
            return EXIT_OK
        if args.command == "serve":
            return _serve(args)
        if args.command == "worker":
            return _worker(args)
        runner = _diagnose if args.command == "diagnose" else _demo
        return asyncio.run(runner(args))
    except (InvalidRequest, ScenarioError, ConfigError) as error:
        sys.stderr.write(f"runai-why: error: {sanitize(str(error))}\n")
        return EXIT_USAGE
    except ValidationError as error:  # Settings(): a value of the wrong type or range
        sys.stderr.write(f"runai-why: error: {invalid_settings(error)}\n")
        return EXIT_USAGE
    except UpstreamError as error:
        log.info("upstream_failed", operation=error.operation, status=error.status)
        sys.stderr.write(
            f"runai-why: the Run:ai control plane failed during {error.operation}: "
            f"{sanitize(str(error.args[0]))} [{error.url}]. "
            "Check RUNAI_URL, the network path and the service account, then retry.\n"
        )
        return EXIT_UPSTREAM
    except DiagnosisError as error:
        sys.stderr.write(f"runai-why: error: {sanitize(str(error))}\n")
        return EXIT_UPSTREAM
    except BrokenPipeError:
        # The reader went away (`runai-why diagnose ... | head`): not an error of ours.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except OSError as error:
        sys.stderr.write(f"runai-why: error: {error}\n")
        return EXIT_USAGE
