# ruff: noqa: INP001 - a standalone script (python3 package.py), not part of a package
"""Builds the Teams app package: `python3 deploy/teams/package.py --app-id <GUID> --domain <host>`.

Fills the bot's Microsoft App ID (the Azure Bot's, `TEAMS_APP_ID`) and the bot's public host
into `manifest.json`, checks the result, and zips it with the two icons into the package to
upload in Teams (Apps → Manage your apps → Upload an app). Standard library only, so it runs
from a checkout without the project's environment.
"""

from __future__ import annotations

import argparse
import io
import json
import re
import sys
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
PLACEHOLDER_ID = "00000000-0000-0000-0000-000000000000"
PLACEHOLDER_DOMAIN = "runai-why.example.com"
ICONS = ("color.png", "outline.png")
GUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
DOMAIN = re.compile(r"^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$")
BOT_SCOPES = {"team", "personal", "groupChat"}
REQUIRED = (
    "$schema", "manifestVersion", "version", "id", "developer", "name", "description",
    "icons", "accentColor",
)  # fmt: skip


#: (where, the text's longest allowed length, and shortest), from the manifest schema.
TEXT_LIMITS = (
    (("name", "short"), 30, 1),
    (("name", "full"), 100, 0),
    (("description", "short"), 80, 1),
    (("description", "full"), 4000, 1),
)
MAX_BOT_SCOPES = 3
MAX_COMMANDS = 10
COMMAND_LIMITS = (("title", 32), ("description", 128))


def _bot_problems(bot: dict[str, Any]) -> list[str]:
    found = [] if GUID.match(str(bot.get("botId", ""))) else ["botId must be a GUID"]
    scopes = bot.get("scopes", [])
    distinct = len(set(scopes)) == len(scopes) and set(scopes) <= BOT_SCOPES
    if not (0 < len(scopes) <= MAX_BOT_SCOPES and distinct):
        found.append("a bot has one to three distinct scopes of team, personal, groupChat")
    for commands in bot.get("commandLists", []):
        if not set(commands.get("scopes", [])) <= set(scopes):
            found.append("a command list's scopes must be the bot's")
        listed = commands.get("commands", [])
        if not 0 < len(listed) <= MAX_COMMANDS:
            found.append("a command list has 1 to 10 commands")
        found += [
            f"a command's {key} is 1 to {most} characters"
            for command in listed
            for key, most in COMMAND_LIMITS
            if not 0 < len(command.get(key, "")) <= most
        ]
    return found


def problems(manifest: dict[str, Any]) -> list[str]:
    """What is wrong with `manifest` for Teams (empty when nothing is)."""
    found = [f"missing {key}" for key in REQUIRED if key not in manifest]
    if not GUID.match(str(manifest.get("id", ""))):
        found.append("id must be a GUID")
    if not re.match(r"^[0-9]+\.[0-9]+\.[0-9]+$", str(manifest.get("version", ""))):
        found.append("version must be MAJOR.MINOR.PATCH")
    for (section, key), most, least in TEXT_LIMITS:
        if not least <= len(manifest.get(section, {}).get(key, "")) <= most:
            found.append(f"{section}.{key} is {least} to {most} characters")
    if set(manifest.get("icons", {})) != {"color", "outline"}:
        found.append("icons needs color and outline")
    if not manifest.get("bots"):
        found.append("the manifest declares no bot")
    for bot in manifest.get("bots", []):
        found += _bot_problems(bot)
    return found


def render(template: str, *, app_id: str, domain: str, bot_id: str | None = None) -> dict[str, Any]:
    """The manifest for `app_id` (and `bot_id`, default the same) served from `domain`.

    Raises:
        ValueError: an ID that is not a GUID (or is the placeholder), a domain that is not a
            host name, or a manifest that fails `problems`.
    """
    bot_id = bot_id or app_id
    for label, value in (("--app-id", app_id), ("--bot-id", bot_id)):
        if not GUID.match(value) or value == PLACEHOLDER_ID:
            raise ValueError(
                f"{label} must be the Azure Bot's Microsoft App ID, a GUID (got {value!r})"
            )
    if not DOMAIN.match(domain) or domain == PLACEHOLDER_DOMAIN:
        raise ValueError(
            f"--domain must be the bot's public host name, e.g. runai-why.acme.com (got {domain!r})"
        )
    manifest = json.loads(template.replace(PLACEHOLDER_DOMAIN, domain))
    manifest["id"] = app_id.lower()
    for bot in manifest.get("bots", []):
        bot["botId"] = bot_id.lower()
    found = problems(manifest)
    if found:
        raise ValueError("the manifest is not valid: " + "; ".join(found))
    return manifest


def package(manifest: dict[str, Any], icons: Path = HERE) -> bytes:
    """The app package: manifest.json and the icons at the root of a zip."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("manifest.json", json.dumps(manifest, indent=2, ensure_ascii=False))
        for icon in ICONS:
            archive.write(icons / icon, icon)
    return buffer.getvalue()


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; 0 when the package was written, 2 on bad input."""
    parser = argparse.ArgumentParser(prog="package.py", description="Build the Teams app package.")
    parser.add_argument(
        "--app-id", required=True, help="the Azure Bot's Microsoft App ID (TEAMS_APP_ID)"
    )
    parser.add_argument("--bot-id", help="the bot's ID, when it differs from the app ID")
    parser.add_argument(
        "--domain", required=True, help="the bot's public host, e.g. runai-why.acme.com"
    )
    parser.add_argument(
        "--out", type=Path, default=Path("runai-why-teams.zip"), help="the zip to write"
    )
    args = parser.parse_args(argv)
    template = (HERE / "manifest.json").read_text(encoding="utf-8")
    try:
        manifest = render(template, app_id=args.app_id, domain=args.domain, bot_id=args.bot_id)
    except ValueError as error:
        sys.stderr.write(f"package.py: error: {error}\n")
        return 2
    args.out.write_bytes(package(manifest))
    sys.stdout.write(
        f"wrote {args.out} (upload it in Teams: Apps, Manage your apps, Upload an app)\n"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
