#!/usr/bin/env python3
"""One entry point for newcomers and CI: builds the virtual environment, then runs a task.

    python3 dev.py demo [ARGS...]   run runai-why against the bundled simulated Run:ai cluster
    python3 dev.py test [PYTEST ARGS...]   format check, lint, type check, Dockerfile lint and
                                    the whole test suite (in parallel, with the coverage gate)
    python3 dev.py bench [ARGS...]  the benchmark: speed, scale, failover (bench/; `--help`)
    python3 dev.py lock             re-resolve requirements/*.txt after changing dependencies
    python3 dev.py run ARGS...      any runai-why command inside the environment

Only the Python standard library is used here, so this works on a machine that has nothing
but Python 3.11+. The environment lives in `.venv/`; it installs exactly the hashed versions
in `requirements/dev.txt` and is reinstalled only when that lock or `pyproject.toml` changes.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = Path(os.environ.get("RUNAI_WHY_VENV", ROOT / ".venv"))
STAMP = VENV / ".runai-why-installed"
MIN_PYTHON = (3, 11)
LOCKS = ROOT / "requirements"
#: The branch coverage the suite must keep (measured over bot/, diagnosis/ and runai_sim/).
COVERAGE_FLOOR = 95
#: `coverage report`'s exit status when the total is under `--fail-under`.
COVERAGE_UNDER_FLOOR = 2


def _bin(name: str) -> Path:
    scripts = "Scripts" if os.name == "nt" else "bin"
    return VENV / scripts / name


def _fingerprint() -> str:
    digest = hashlib.sha256()
    for path in (ROOT / "pyproject.toml", LOCKS / "dev.txt"):
        digest.update(path.read_bytes())
    return digest.hexdigest()


def ensure_venv() -> None:
    """Create `.venv` and install the project with its dev extras when missing or stale."""
    if sys.version_info < MIN_PYTHON:
        sys.exit(f"runai-why needs Python {MIN_PYTHON[0]}.{MIN_PYTHON[1]}+, this is {sys.version}")
    if STAMP.exists() and STAMP.read_text() == _fingerprint() and _bin("runai-why").exists():
        return
    if not _bin("python").exists():
        print(f"dev.py: creating virtual environment in {VENV}", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    print("dev.py: installing runai-why and its dev tools (first run only)", flush=True)
    pip = [str(_bin("python")), "-m", "pip", "--disable-pip-version-check", "-q", "install"]
    subprocess.run([*pip, "--require-hashes", "-r", str(LOCKS / "dev.txt")], check=True)
    # Everything it needs is in the lock, the build backend included.
    subprocess.run([*pip, "--no-deps", "--no-build-isolation", "-e", str(ROOT)], check=True)
    STAMP.write_text(_fingerprint())


def _env() -> dict[str, str]:
    """The tasks' environment: compiled bytecode is kept, in `.venv/pycache`.

    A machine may set PYTHONDONTWRITEBYTECODE (this project's build machine does); the tasks
    then compiled every module, and pytest rewrote every test module's asserts, on each run
    (about 3 s per test process). The cache lives inside the venv, so the tree stays clean.
    """
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.setdefault("PYTHONPYCACHEPREFIX", str(VENV / "pycache"))
    return env


def _run(args: list[str]) -> int:
    print("$ " + " ".join(args), flush=True)
    return subprocess.run(args, cwd=ROOT, env=_env(), check=False).returncode


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
    """Dispatch `demo`, `test`, `bench`, `lock` or `run`."""
    if not argv or argv[0] not in {"demo", "test", "run", "bench", "lock"}:
        print(__doc__)
        return 2
    ensure_venv()
    task, rest = argv[0], argv[1:]
    if task == "test":
        return task_test(rest)
    if task == "lock":
        return task_lock()
    if task == "bench":
        return _run([str(_bin("python")), "-m", "bench", *rest])
    if task == "demo":
        return _run([str(_bin("runai-why")), "demo", *rest])
    return _run([str(_bin("runai-why")), *rest])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
