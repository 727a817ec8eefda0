"""dev.py: which level of the environment each task installs, and Ctrl-C through it."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.terminal import terminal

ROOT = Path(__file__).resolve().parents[1]


def load_dev(venv: Path | None = None) -> ModuleType:
    """A fresh import of dev.py (for `venv`, as RUNAI_WHY_VENV would choose it)."""
    spec = importlib.util.spec_from_file_location("dev", ROOT / "dev.py")
    assert spec is not None
    assert spec.loader is not None
    dev = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(dev)
    if venv is not None:
        vars(dev).update(VENV=venv, STAMP=venv / ".runai-why-installed")
    return dev


@pytest.fixture
def dev(tmp_path: Path) -> ModuleType:
    """dev.py over an empty environment in `tmp_path` that has its `runai-why` script."""
    module = load_dev(tmp_path)
    module._bin("runai-why").parent.mkdir(parents=True)
    module._bin("runai-why").touch()
    return module


def _stamp(dev: ModuleType, text: str) -> None:
    dev.STAMP.write_text(text, encoding="utf-8")


@pytest.mark.parametrize(
    ("stamp", "installed"),
    [
        pytest.param(None, set(), id="a fresh clone"),
        pytest.param("runtime {runtime}\n", {"runtime"}, id="the demo ran"),
        pytest.param("runtime {runtime}\ndev {dev}\n", {"runtime", "dev"}, id="the tests ran"),
        pytest.param("dev {dev}\n", {"runtime", "dev"}, id="dev holds every runtime pin"),
        pytest.param("{dev}", {"runtime", "dev"}, id="an older dev.py's stamp"),
        pytest.param("0123abcd", set(), id="an older stamp of other locks"),
        pytest.param("runtime 0123\ndev {dev}\n", {"runtime", "dev"}, id="dev is enough"),
        pytest.param("runtime {runtime}\ndev 0123\n", {"runtime"}, id="the locks changed dev"),
        pytest.param("dev\n", set(), id="a torn stamp"),
    ],
)
def test_the_stamp_says_which_levels_are_current(dev, stamp: str | None, installed: set[str]):
    if stamp is not None:
        prints = {level: dev._fingerprint(level) for level in dev.LEVELS}
        _stamp(dev, stamp.format(**prints))
    assert dev.installed_levels() == installed


def test_without_its_script_the_environment_holds_nothing(dev):
    _stamp(dev, f"dev {dev._fingerprint('dev')}\n")
    dev._bin("runai-why").unlink()
    assert dev.installed_levels() == set()


@pytest.mark.parametrize(
    ("task", "installed", "lock"),
    [
        ("demo", set(), "runtime.txt"),
        ("run", set(), "runtime.txt"),
        ("test", set(), "dev.txt"),
        ("test", {"runtime"}, "dev.txt"),
        ("bench", {"runtime"}, "dev.txt"),
        ("lock", {"runtime"}, "dev.txt"),
        ("demo", {"runtime"}, None),
        ("demo", {"runtime", "dev"}, None),
        ("test", {"runtime", "dev"}, None),
    ],
)
def test_each_task_installs_only_the_level_it_needs(task: str, installed: set[str], lock):
    dev = load_dev()
    assert dev.to_install(dev.NEEDS[task], installed) == lock


def test_the_runtime_level_is_what_the_image_installs():
    dev = load_dev()
    assert dev.LEVELS == {"runtime": "runtime.txt", "dev": "dev.txt"}
    assert "requirements/runtime.txt" in (ROOT / "deploy" / "Dockerfile").read_text()


def test_a_program_killed_by_a_signal_exits_as_a_shell_says():
    dev = load_dev()
    code = "import os, signal; os.kill(os.getpid(), signal.SIGTERM)"
    killed = subprocess.Popen([sys.executable, "-c", code])  # noqa: S603 - this interpreter
    assert dev._wait(killed) == 128 + 15


def test_dev_py_keeps_bytecode_in_the_venv_even_where_the_machine_turns_it_off(monkeypatch):
    dev = load_dev()
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.delenv("PYTHONPYCACHEPREFIX", raising=False)
    env = dev._env()
    assert "PYTHONDONTWRITEBYTECODE" not in env
    assert env["PYTHONPYCACHEPREFIX"] == str(dev.VENV / "pycache")
    monkeypatch.setenv("PYTHONPYCACHEPREFIX", "/elsewhere")
    assert dev._env()["PYTHONPYCACHEPREFIX"] == "/elsewhere"  # a developer's own choice stays


@pytest.mark.e2e
def test_ctrl_c_in_the_demo_leaves_dev_py_quietly_with_130(tmp_path: Path):
    """Typed in a real terminal, Ctrl-C reaches dev.py and the demo: no traceback, 130."""
    venv = Path(sys.prefix)
    if "runtime" not in load_dev(venv).installed_levels():
        pytest.skip(f"{venv} was not installed by dev.py, which would install it first")
    env = {"PATH": os.environ.get("PATH", ""), "RUNAI_WHY_VENV": str(venv), "TERM": "xterm"}
    argv = [sys.executable, str(ROOT / "dev.py"), "demo"]
    with terminal(argv, env={**env, "HOME": str(tmp_path)}, cwd=tmp_path) as demo:
        demo.expect(b"you> ")
        demo.type(b"\x03")
        assert demo.wait() == 130
    assert b"Traceback" not in demo.output
    assert b"KeyboardInterrupt" not in demo.output
    assert not demo.output.startswith(b"$ ")  # the demo starts with its own welcome
