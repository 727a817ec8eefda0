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
from pathlib import Path

import structlog
from pydantic import ValidationError

from bot.app.backends import Backends, from_settings, simulated
from bot.app.cli_parser import EXIT_USAGE, build_parser
from bot.app.demo.chat import bundled_script, diagnose_all, run_chat
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

EXIT_OK, EXIT_UPSTREAM, EXIT_INTERRUPTED = 0, 3, 130
SIMULATOR_HINT = " (or pass --scenario FILE to use the simulator)"


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
    if not settings.queue.embedded_worker and settings.redis.url is None:
        raise ConfigError(
            "set REDIS_URL to serve without a worker (--no-worker, EMBEDDED_WORKER=false): "
            "without it the queue lives in this process, where no worker takes what it "
            "acknowledges"
        )
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
    parser = build_parser()
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
