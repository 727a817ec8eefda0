#!/usr/bin/env python3
"""One entry point for newcomers and CI: builds the virtual environment, then runs a task.

    python3 dev.py demo [ARGS...]   run runai-why against the bundled simulated Run:ai cluster
    python3 dev.py run ARGS...      any runai-why command inside the environment
                                    (`python3 dev.py run diagnose --help`)
    python3 dev.py test [PYTEST ARGS...]   format check, lint, type check, Dockerfile lint and
                                    the whole test suite (in parallel, with the coverage gate)
    python3 dev.py bench [ARGS...]  the benchmark: speed, scale, failover (bench/; `--help`)
    python3 dev.py lock             re-resolve requirements/*.txt after changing dependencies

Only the Python standard library is used here, so this works on a machine that has nothing
but Python 3.11+. The environment lives in `.venv/` and comes in two levels: `demo` and
`run` need only the runtime (the hashed versions in `requirements/runtime.txt`); `test`,
`bench` and `lock` add the development tools (`requirements/dev.txt`, the same versions
plus the tools). A level is installed the first time a task needs it, and again only when
its lock or `pyproject.toml` changes.
"""

from __future__ import annotations

import hashlib
import os
import re
import signal
import subprocess
import sys
import threading
import time
import venv
from pathlib import Path
from typing import Self

ROOT = Path(__file__).resolve().parent
VENV = Path(os.environ.get("RUNAI_WHY_VENV", ROOT / ".venv"))
STAMP = VENV / ".runai-why-installed"
MIN_PYTHON = (3, 11)
LOCKS = ROOT / "requirements"
#: What each level installs; `dev` holds every `runtime` pin at the same version, and more.
LEVELS = {"runtime": "runtime.txt", "dev": "dev.txt"}
#: The levels each task needs.
NEEDS = {"demo": "runtime", "run": "runtime", "test": "dev", "bench": "dev", "lock": "dev"}
#: The branch coverage the suite must keep (measured over bot/, diagnosis/ and runai_sim/).
COVERAGE_FLOOR = 95
#: `coverage report`'s exit status when the total is under `--fail-under`.
COVERAGE_UNDER_FLOOR = 2
#: The exit status of a program stopped by Ctrl-C, as a shell reports it.
INTERRUPTED = 128 + signal.SIGINT


def _bin(name: str) -> Path:
    scripts = "Scripts" if os.name == "nt" else "bin"
    return VENV / scripts / name


def _fingerprint(level: str) -> str:
    digest = hashlib.sha256()
    for path in (ROOT / "pyproject.toml", LOCKS / LEVELS[level]):
        digest.update(path.read_bytes())
    return digest.hexdigest()


def installed_levels() -> set[str]:
    """The levels `.venv` holds as their locks say today, from its stamp.

    The stamp has a `<level> <fingerprint>` line per level installed; a stamp of one bare
    fingerprint is the dev environment an older dev.py installed.
    """
    if not STAMP.exists() or not _bin("runai-why").exists():
        return set()
    words = STAMP.read_text(encoding="utf-8").split()
    if len(words) == 1:  # before the levels: the whole dev environment
        words = ["dev", *words]
    recorded = dict(zip(words[::2], words[1::2], strict=False))
    current = {level for level in LEVELS if recorded.get(level) == _fingerprint(level)}
    # dev pins every runtime package at the same version: a current dev is a current runtime
    return current | {"runtime"} if "dev" in current else current


def to_install(level: str, installed: set[str]) -> str | None:
    """The lock to install for a task needing `level`, or None when `.venv` has it."""
    return None if level in installed else LEVELS[level]


def ensure_venv(level: str) -> None:
    """Create `.venv` and install `level` (`runtime` or `dev`) when missing or stale."""
    if sys.version_info < MIN_PYTHON:
        sys.exit(f"runai-why needs Python {MIN_PYTHON[0]}.{MIN_PYTHON[1]}+, this is {sys.version}")
    lock = to_install(level, installed_levels())
    if lock is None:
        return
    started = time.monotonic()
    if not _bin("python").exists():
        _say(f"dev.py: creating a virtual environment in {VENV}")
        venv.EnvBuilder(with_pip=True).create(VENV)
    what = "runai-why and its development tools" if level == "dev" else "runai-why"
    pip = [str(_bin("python")), "-m", "pip", "--disable-pip-version-check", "install"]
    # The lock pins every package: `--no-deps` installs exactly it, so pip resolves nothing. (A
    # dependency asking for an extra, `coverage[toml]` from pytest-cov, made pip 23 pick the
    # newest release for it and refuse it as unpinned once one newer than the lock appeared.)
    locked = ["--no-deps", "--require-hashes", "-r", str(LOCKS / lock)]
    _install(f"installing {what}", [*pip, *locked], lock)
    # Everything it needs is in the lock, the build backend included.
    editable = [*pip, "-q", "--no-deps", "--no-build-isolation", "-e", str(ROOT)]
    code = _wait(subprocess.Popen(editable))
    if code:
        sys.exit(code)
    levels = ["runtime", "dev"] if level == "dev" else ["runtime"]
    STAMP.write_text("".join(f"{name} {_fingerprint(name)}\n" for name in levels))
    _say(f"dev.py: {what} installed in {time.monotonic() - started:.0f} s")


def _say(line: str) -> None:
    """Progress goes to stderr: stdout is the task's (`dev.py run diagnose --json | jq`)."""
    print(line, file=sys.stderr, flush=True)


def _install(what: str, command: list[str], lock: str) -> None:
    """Run pip, showing how far it got on one line; all of its output only if it fails."""
    total = len(re.findall(r"^[A-Za-z0-9][^\s=]*==", (LOCKS / lock).read_text(), re.MULTILINE))
    progress = _Progress(f"dev.py: {what} ({total} packages from requirements/{lock})")
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace"
    )
    said: list[str] = []
    seen = 0
    with progress:
        for line in process.stdout or ():
            said.append(line)
            if line.startswith(("Collecting ", "Requirement already satisfied: ", "Ignoring ")):
                seen += 1
                progress.show("collecting", f"{seen}/{total}")
            elif line.startswith("Installing collected packages: "):
                progress.show("unpacking", f"{len(line.split(':', 1)[1].split(','))} packages")
    code = _wait(process)
    if code:
        print("".join(said[-60:]), end="", file=sys.stderr, flush=True)
        sys.exit(code)


class _Progress:
    """One line that says what is happening and for how long (a line per phase off a TTY)."""

    def __init__(self, title: str) -> None:
        self._title, self._phase, self._detail = title, "", ""
        self._started = time.monotonic()
        self._tty = sys.stderr.isatty()
        self._done = threading.Event()
        self._ticker = threading.Thread(target=self._tick, daemon=True)

    def __enter__(self) -> Self:
        if self._tty:
            self._ticker.start()
        else:
            _say(f"{self._title}…")
        return self

    def show(self, phase: str, detail: str) -> None:
        """Now in `phase` (`collecting`), this far (`12/52`)."""
        new_phase, self._phase, self._detail = phase != self._phase, phase, detail
        if self._tty:
            self._draw()
        elif new_phase:
            _say(f"dev.py: {phase} {detail}")

    def _tick(self) -> None:
        while not self._done.wait(1):
            self._draw()

    def _draw(self) -> None:
        seconds = time.monotonic() - self._started
        doing = f"{self._phase} {self._detail}, " if self._phase else ""
        sys.stderr.write(f"\r\033[K{self._title}: {doing}{seconds:.0f} s")
        sys.stderr.flush()

    def __exit__(self, *_: object) -> None:
        self._done.set()
        if self._tty:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()


def _wait(process: subprocess.Popen[str] | subprocess.Popen[bytes]) -> int:
    """The exit status of a started program that owns Ctrl-C: dev.py waits through it.

    Ctrl-C reaches every program in the terminal's foreground; the task's program decides
    what it means (the demo leaves quietly with 130) and dev.py only reports its status,
    instead of a KeyboardInterrupt traceback of its own. A program killed by a signal
    exits 128 + the signal's number, as a shell says.
    """
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        code = process.wait()
    finally:
        signal.signal(signal.SIGINT, previous)
    return 128 - code if code < 0 else code


def _env() -> dict[str, str]:
    """The tasks' environment: compiled bytecode is kept, in `.venv/pycache`.

    A machine may set PYTHONDONTWRITEBYTECODE (this project's build machine does); the tasks
    then compiled every module, and pytest rewrote every test module's asserts, on each run
    (about 3 s per test process). The cache lives inside the venv, so the tree stays clean.
    """
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.setdefault("PYTHONPYCACHEPREFIX", str(VENV / "pycache"))
    return env


def _run(args: list[str], *, echo: bool = True) -> int:
    if echo:
        print("$ " + " ".join(args), flush=True)
    return _wait(subprocess.Popen(args, cwd=ROOT, env=_env()))


def task_test(extra: list[str]) -> int:
    """Run every check CI runs, stopping at the first that fails."""
    pytest = [str(_bin("python")), "-m", "pytest"]
    whole = not extra
    if whole:  # the whole suite, in parallel, with the coverage gate (a total line, no table)
        extra = ["-n", "auto", "--cov", "--cov-report=", f"--cov-fail-under={COVERAGE_FLOOR}"]
    steps = [
        [str(_bin("ruff")), "format", "--check", "."],
        [str(_bin("ruff")), "check", "."],
        [str(_bin("mypy"))],
        [str(_bin("lint-imports")), "--no-logo", "--no-cache"],
        [str(_bin("hadolint")), str(ROOT / "deploy" / "Dockerfile")],
        [*pytest, *extra],
    ]
    for step in steps:
        code = _run(step)
        if code != 0:
            if whole and step is steps[-1]:
                _show_missing_coverage()
            return code
    return 0


def _show_missing_coverage() -> None:
    """After a failed run, what is left uncovered, if the coverage gate is what failed.

    Only then: analysing every file for the table costs a second of every run.
    """
    report = [str(_bin("coverage")), "report", "--skip-covered", "--show-missing"]
    report.append(f"--fail-under={COVERAGE_FLOOR}")
    done = subprocess.run(report, cwd=ROOT, env=_env(), capture_output=True, text=True, check=False)
    if done.returncode == COVERAGE_UNDER_FLOOR:
        print(done.stdout, end="", flush=True)


def task_lock() -> int:
    """Re-resolve both locks from pyproject.toml (needs the package index)."""
    compile_ = [str(_bin("uv")), "pip", "compile", "--universal", "--generate-hashes", "--quiet"]
    compile_ += ["--python-version", f"{MIN_PYTHON[0]}.{MIN_PYTHON[1]}"]
    compile_ += ["--custom-compile-command", "python3 dev.py lock"]
    sources = ["pyproject.toml", "requirements/build.in"]  # relative: they are named in the lock
    for extra, out in (([], "runtime.txt"), (["--extra", "dev"], "dev.txt")):
        code = _run([*compile_, *sources, *extra, "-o", f"requirements/{out}"])
        if code != 0:
            return code
    return 0


def main(argv: list[str]) -> int:
    """Dispatch `demo`, `run`, `test`, `bench` or `lock`; Ctrl-C anywhere exits 130 quietly."""
    if not argv or argv[0] not in NEEDS:
        print(__doc__)
        return 2
    try:
        return _task(argv[0], argv[1:])
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return INTERRUPTED


def _task(task: str, rest: list[str]) -> int:
    ensure_venv(NEEDS[task])
    if task == "test":
        return task_test(rest)
    if task == "lock":
        return task_lock()
    if task == "bench":
        return _run([str(_bin("python")), "-m", "bench", *rest])
    if task == "demo":
        return _run([str(_bin("runai-why")), "demo", *rest], echo=False)
    return _run([str(_bin("runai-why")), *rest], echo=False)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
