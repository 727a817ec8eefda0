"""Keeping the harness off the bot's cores: the split, pinning a process, the launcher."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.cores import Split, describe, launch, named, pin, split, usable

SPLITS = {
    "one core: nothing to split": ([0], None),
    "two: the harness on the first": ([0, 1], Split(frozenset({1}), frozenset({0}))),
    "three: a third each way up": ([0, 1, 2], Split(frozenset({1, 2}), frozenset({0}))),
    "four: two each": ([0, 1, 2, 3], Split(frozenset({2, 3}), frozenset({0, 1}))),
    "eight: three for the harness": (
        list(range(8)),
        Split(frozenset(range(3, 8)), frozenset(range(3))),
    ),
    "unordered, with gaps": ([5, 1, 3], Split(frozenset({3, 5}), frozenset({1}))),
    "no affinity (empty)": ([], None),
}


@pytest.mark.parametrize(("cores", "expected"), SPLITS.values(), ids=SPLITS.keys())
def test_the_harness_gets_the_lowest_third_and_the_bot_the_rest(cores, expected):
    assert split(cores) == expected


def test_cores_are_listed_and_named_for_the_table():
    assert (describe({3, 1}), named({1}), named({3, 2})) == ("1,3", "core 1", "cores 2,3")


def _last_core() -> int:
    cores = usable()
    if not cores:
        pytest.skip("this OS has no CPU affinity")
    return max(cores)


THREADED = """
import threading, time
for _ in range(3):
    threading.Thread(target=time.sleep, args=(30,), daemon=True).start()
print("started", flush=True)
time.sleep(30)
"""


def test_pin_moves_every_thread_of_a_running_process():
    core = _last_core()
    with subprocess.Popen(  # noqa: S603
        [sys.executable, "-c", THREADED], stdout=subprocess.PIPE, text=True
    ) as child:
        try:
            assert child.stdout is not None
            assert child.stdout.readline().strip() == "started"
            tasks = [int(t.name) for t in Path(f"/proc/{child.pid}/task").iterdir()]
            pin(child.pid, {core})
            assert len(tasks) == 4
            assert {t: os.sched_getaffinity(t) for t in tasks} == {t: {core} for t in tasks}
        finally:
            child.kill()


def test_the_launcher_runs_the_command_on_the_cores_it_names():
    core = _last_core()
    show = [sys.executable, "-c", "import os; print(sorted(os.sched_getaffinity(0)))"]
    done = subprocess.run(launch({core}, show), capture_output=True, text=True, check=True)  # noqa: S603
    assert done.stdout.strip() == f"[{core}]"


LAUNCH_ERRORS = {
    "no command": (["0"], 2, "usage: python -m bench.cores CPUS -- COMMAND"),
    "no separator": (["0", "true"], 2, "usage:"),
    "not a number": (["one", "--", "true"], 2, "cannot run on cores 'one'"),
    "a core that does not exist": (["4096", "--", "true"], 2, "cannot run on cores '4096'"),
    "a command that does not exist": (
        ["{core}", "--", "/nonexistent/runai-why"],
        127,
        "cannot run '/nonexistent/runai-why'",
    ),
}


@pytest.mark.parametrize(
    ("args", "status", "said"), LAUNCH_ERRORS.values(), ids=LAUNCH_ERRORS.keys()
)
def test_the_launcher_says_what_it_cannot_do(args, status, said):
    core = _last_core()
    argv = [a.format(core=core) for a in args]
    done = subprocess.run(  # noqa: S603
        [sys.executable, "-m", "bench.cores", *argv], capture_output=True, text=True, check=False
    )
    assert (done.returncode, said in done.stderr) == (status, True), done.stderr
