"""The Teams app manifest, its icons and the package command (`deploy/teams/`)."""

from __future__ import annotations

import importlib.util
import io
import json
import re
import struct
import subprocess
import sys
import zipfile
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from PIL import Image

TEAMS = Path(__file__).resolve().parents[1] / "deploy" / "teams"
APP_ID = "0f6a1c2e-3b4d-4e5f-8a9b-0c1d2e3f4a5b"
BOT_ID = "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b"
GUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def _module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("teams_package", TEAMS / "package.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


package = _module()


def template() -> str:
    return (TEAMS / "manifest.json").read_text(encoding="utf-8")


def manifest() -> dict[str, Any]:
    return json.loads(template())


def test_the_manifest_is_valid_json_of_the_current_schema():
    m = manifest()
    assert m["manifestVersion"] == "1.22"
    assert m["$schema"] == (
        "https://developer.microsoft.com/json-schemas/teams/v1.22/MicrosoftTeams.schema.json"
    )
    for key in ("version", "id", "developer", "name", "description", "icons", "accentColor"):
        assert key in m, key
    assert GUID.match(m["id"])
    assert set(m["developer"]) >= {"name", "websiteUrl", "privacyUrl", "termsOfUseUrl"}
    assert all(m["developer"][k].startswith("https://") for k in m["developer"] if k != "name")
    assert package.problems(m) == []


def test_one_bot_in_team_personal_and_group_chat_with_why_and_help():
    [bot] = manifest()["bots"]
    assert GUID.match(bot["botId"])
    assert bot["scopes"] == ["team", "personal", "groupChat"]
    assert len(bot["scopes"]) <= 3
    assert bot["isNotificationOnly"] is False
    [commands] = bot["commandLists"]
    assert commands["scopes"] == bot["scopes"]
    assert [c["title"] for c in commands["commands"]] == ["why", "help"]


#: (case, change to the manifest, the problem reported)
BROKEN = [
    ("no icons", lambda m: m.pop("icons"), "missing icons"),
    ("an ID that is no GUID", lambda m: m.update(id="runai-why"), "id must be a GUID"),
    ("a bot ID that is no GUID", lambda m: m["bots"][0].update(botId="x"), "botId must be a GUID"),
    (
        "four scopes",
        lambda m: m["bots"][0]["scopes"].append("team"),
        "one to three distinct scopes",
    ),
    (
        "an unknown scope",
        lambda m: m["bots"][0].update(scopes=["meetings"]),
        "one to three distinct",
    ),
    ("no bot", lambda m: m.update(bots=[]), "declares no bot"),
    ("a long short name", lambda m: m["name"].update(short="r" * 31), "name.short is 1 to 30"),
    (
        "a long command",
        lambda m: m["bots"][0]["commandLists"][0]["commands"][0].update(title="w" * 33),
        "title is 1 to 32",
    ),
    (
        "eleven commands",
        lambda m: m["bots"][0]["commandLists"][0].update(
            commands=[{"title": "a", "description": "b"}] * 11
        ),
        "1 to 10 commands",
    ),
    (
        "commands for a scope the bot lacks",
        lambda m: m["bots"][0].update(scopes=["personal"]),
        "scopes must be the bot's",
    ),
    ("a version that is not semver", lambda m: m.update(version="1"), "MAJOR.MINOR.PATCH"),
]


@pytest.mark.parametrize(("change", "problem"), [c[1:] for c in BROKEN], ids=[c[0] for c in BROKEN])
def test_the_checks_catch_a_broken_manifest(change, problem):
    m = manifest()
    change(m)
    assert any(problem in p for p in package.problems(m)), package.problems(m)


def _png_size(data: bytes) -> tuple[int, int]:
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_the_icons_are_the_sizes_teams_wants_and_the_outline_is_white_on_transparent():
    icons = manifest()["icons"]
    assert _png_size((TEAMS / icons["color"]).read_bytes()) == (192, 192)
    assert _png_size((TEAMS / icons["outline"]).read_bytes()) == (32, 32)
    with Image.open(TEAMS / icons["outline"]) as outline:
        rgba = outline.convert("RGBA").tobytes()
    pixels = [rgba[i : i + 4] for i in range(0, len(rgba), 4)]
    opaque = [p for p in pixels if p[3] > 0]
    assert opaque
    assert len(opaque) < len(pixels)
    assert all(p[:3] == b"\xff\xff\xff" for p in opaque)  # white wherever it is not transparent


def test_the_icons_are_what_the_script_draws():
    icons = _module_from("icons.py")
    assert (TEAMS / "color.png").read_bytes() == icons.icon(192, icons.WHITE, icons.GREEN)
    assert (TEAMS / "outline.png").read_bytes() == icons.icon(32, icons.WHITE, icons.CLEAR)


def _module_from(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"teams_{name[:-3]}", TEAMS / name)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_package_substitutes_the_ids_and_the_domain(tmp_path: Path):
    out = tmp_path / "runai-why-teams.zip"
    args = ["--app-id", APP_ID.upper(), "--bot-id", BOT_ID, "--domain", "runai-why.acme.com"]
    done = subprocess.run(  # noqa: S603 - this interpreter, our own script
        [sys.executable, str(TEAMS / "package.py"), *args, "--out", str(out)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    with zipfile.ZipFile(out) as archive:
        assert sorted(archive.namelist()) == ["color.png", "manifest.json", "outline.png"]
        built = json.loads(archive.read("manifest.json"))
        assert archive.read("color.png") == (TEAMS / "color.png").read_bytes()
    assert built["id"] == APP_ID
    assert built["bots"][0]["botId"] == BOT_ID
    assert built["validDomains"] == ["runai-why.acme.com"]
    assert built["developer"]["websiteUrl"] == "https://runai-why.acme.com"
    assert "example.com" not in json.dumps(built)
    assert package.problems(built) == []


def test_the_bot_id_defaults_to_the_app_id():
    built = package.render(template(), app_id=APP_ID, domain="bot.acme.com")
    assert built["bots"][0]["botId"] == built["id"] == APP_ID
    with zipfile.ZipFile(io.BytesIO(package.package(built))) as archive:
        assert json.loads(archive.read("manifest.json")) == built


#: (case, arguments, what the error names)
REFUSED = [
    ("no GUID", ["--app-id", "runai-why", "--domain", "bot.acme.com"], "--app-id must be"),
    (
        "the placeholder",
        ["--app-id", "00000000-0000-0000-0000-000000000000", "--domain", "bot.acme.com"],
        "--app-id must be",
    ),
    (
        "a bad bot ID",
        ["--app-id", APP_ID, "--bot-id", "b", "--domain", "bot.acme.com"],
        "--bot-id must be",
    ),
    (
        "a URL for a domain",
        ["--app-id", APP_ID, "--domain", "https://bot.acme.com"],
        "--domain must be",
    ),
    (
        "the example domain",
        ["--app-id", APP_ID, "--domain", "runai-why.example.com"],
        "--domain must be",
    ),
]


@pytest.mark.parametrize("args", [c[1] for c in REFUSED], ids=[c[0] for c in REFUSED])
def test_bad_input_is_refused_and_nothing_is_written(tmp_path: Path, capsys, args):
    out = tmp_path / "app.zip"
    assert package.main([*args, "--out", str(out)]) == 2
    assert not out.exists()
    expected = next(c[2] for c in REFUSED if c[1] == args)
    assert expected in capsys.readouterr().err


def test_a_package_that_fails_the_checks_is_refused():
    broken = template().replace('"short": "runai-why"', '"short": "' + "r" * 40 + '"')
    with pytest.raises(ValueError, match=r"name\.short is 1 to 30"):
        package.render(broken, app_id=APP_ID, domain="bot.acme.com")


def test_main_writes_the_package(tmp_path: Path, capsys):
    out = tmp_path / "app.zip"
    assert package.main(["--app-id", APP_ID, "--domain", "bot.acme.com", "--out", str(out)]) == 0
    assert zipfile.is_zipfile(out)
    assert "Upload an app" in capsys.readouterr().out
