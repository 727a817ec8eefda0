"""The Adaptive Card 1.5 rules the Teams renderer relies on, as a checker for its activities.

Element and action types, their required properties, the enumerated values of the styles
used (from the Adaptive Cards 1.5 schema, adaptivecards.io/explorer), the card's version and
the Bot Framework attachment's content type. An unknown type or property is an error, so a
card the checker accepts uses only what 1.5 defines.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

__all__ = ["check_activity", "elements", "runs", "texts"]

SIZES = {"Small", "Default", "Medium", "Large", "ExtraLarge"}
WEIGHTS = {"Lighter", "Default", "Bolder"}
SPACINGS = {"None", "Small", "Default", "Medium", "Large", "ExtraLarge", "Padding"}
FONT_TYPES = {"Default", "Monospace"}
IMAGE_SIZES = {"Auto", "Stretch", "Small", "Medium", "Large"}
COMMON = {"type", "spacing", "separator", "id", "isVisible"}

#: element type -> (required properties, allowed properties beyond COMMON).
ELEMENTS: dict[str, tuple[set[str], set[str]]] = {
    "TextBlock": ({"text"}, {"text", "wrap", "size", "weight", "isSubtle", "fontType"}),
    "FactSet": ({"facts"}, {"facts"}),
    "Image": ({"url"}, {"url", "altText", "size"}),
    "Container": ({"items"}, {"items"}),
    "ActionSet": ({"actions"}, {"actions"}),
    "RichTextBlock": ({"inlines"}, {"inlines"}),
}
#: A RichTextBlock's inline: (required, allowed); Teams reads no markdown in its text.
TEXT_RUN: tuple[set[str], set[str]] = ({"type", "text"}, {"type", "text", "fontType"})
#: action type -> (required, allowed).
ACTIONS: dict[str, tuple[set[str], set[str]]] = {
    "Action.Submit": ({"title", "data"}, {"type", "title", "data"}),
    "Action.OpenUrl": ({"title", "url"}, {"type", "title", "url"}),
}
ENUMS = {"size": SIZES, "weight": WEIGHTS, "spacing": SPACINGS, "fontType": FONT_TYPES}


def _check_action(action: dict[str, Any], where: str) -> list[str]:
    kind = action.get("type")
    if kind not in ACTIONS:
        return [f"{where}: unknown action type {kind!r}"]
    required, allowed = ACTIONS[kind]
    errors = [f"{where}: {kind} lacks {p}" for p in sorted(required - action.keys())]
    errors += [f"{where}: {kind} has {p}" for p in sorted(action.keys() - allowed)]
    if not isinstance(action.get("title"), str) or not action["title"]:
        errors.append(f"{where}: an action needs a non-empty title")
    if kind == "Action.OpenUrl" and urlsplit(action.get("url", "")).scheme not in {"https", "http"}:
        errors.append(f"{where}: Action.OpenUrl needs an http(s) URL")
    if kind == "Action.Submit" and not isinstance(action.get("data"), dict):
        errors.append(f"{where}: Action.Submit data must be an object")
    return errors


def _check_element(element: dict[str, Any], where: str) -> list[str]:
    kind = element.get("type")
    if kind not in ELEMENTS:
        return [f"{where}: unknown element type {kind!r}"]
    required, allowed = ELEMENTS[kind]
    errors = [f"{where}: {kind} lacks {p}" for p in sorted(required - element.keys())]
    errors += [f"{where}: {kind} has {p}" for p in sorted(element.keys() - allowed - COMMON)]
    for prop, values in ENUMS.items():
        if prop in element and element[prop] not in (IMAGE_SIZES if kind == "Image" else values):
            errors.append(f"{where}: {prop}={element[prop]!r}")
    if kind == "TextBlock" and (not isinstance(element["text"], str) or not element["text"]):
        errors.append(f"{where}: a TextBlock needs text")
    if kind == "FactSet":
        for fact in element["facts"]:
            if set(fact) != {"title", "value"} or not all(
                isinstance(v, str) for v in fact.values()
            ):
                errors.append(f"{where}: a fact is {{title, value}} strings")
    return errors + _check_children(element, where)


def _check_children(element: dict[str, Any], where: str) -> list[str]:
    """A Container's items, an ActionSet's actions, a RichTextBlock's inlines."""
    errors: list[str] = []
    for i, item in enumerate(element.get("items", [])):
        errors += _check_element(item, f"{where}.items[{i}]")
    if element["type"] == "ActionSet":
        for i, action in enumerate(element["actions"]):
            errors += _check_action(action, f"{where}.actions[{i}]")
    if element["type"] == "RichTextBlock":
        if not element["inlines"]:
            errors.append(f"{where}: a RichTextBlock needs inlines")
        for i, run in enumerate(element["inlines"]):
            errors += _check_run(run, f"{where}.inlines[{i}]")
    return errors


def _check_run(run: dict[str, Any], where: str) -> list[str]:
    required, allowed = TEXT_RUN
    if run.get("type") != "TextRun":
        return [f"{where}: an inline must be a TextRun"]
    errors = [f"{where}: TextRun lacks {p}" for p in sorted(required - run.keys())]
    errors += [f"{where}: TextRun has {p}" for p in sorted(run.keys() - allowed)]
    if not isinstance(run.get("text"), str) or not run["text"]:
        errors.append(f"{where}: a TextRun needs text")
    if "fontType" in run and run["fontType"] not in FONT_TYPES:
        errors.append(f"{where}: fontType={run['fontType']!r}")
    return errors


def check_activity(activity: dict[str, Any]) -> list[str]:
    """Every rule `activity` breaks (empty when it is a valid message for Teams)."""
    if activity.get("type") != "message":
        return ["an activity must be a message"]
    if "attachments" not in activity:
        ok = isinstance(activity.get("text"), str) and activity.get("textFormat") == "markdown"
        return [] if ok else ["a text message needs text and textFormat markdown"]
    errors: list[str] = []
    if not isinstance(activity.get("summary"), str) or not activity["summary"]:
        errors.append("a card activity needs a summary")
    [attachment] = activity["attachments"]
    if attachment["contentType"] != "application/vnd.microsoft.card.adaptive":
        errors.append("wrong content type")
    card = attachment["content"]
    if card.get("type") != "AdaptiveCard" or card.get("version") != "1.5":
        errors.append("the card must be an AdaptiveCard of version 1.5")
    if set(card) - {"type", "$schema", "version", "body", "actions", "msteams"}:
        errors.append(f"unknown card properties {set(card)}")
    if not card.get("body"):
        errors.append("a card needs a body")
    for i, element in enumerate(card.get("body", [])):
        errors += _check_element(element, f"body[{i}]")
    for i, action in enumerate(card.get("actions", [])):
        errors += _check_action(action, f"actions[{i}]")
    return errors


def elements(activity: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Every element of the card, containers' items included, in order."""
    stack = list(reversed(activity["attachments"][0]["content"]["body"]))
    while stack:
        element = stack.pop()
        yield element
        stack.extend(reversed(element.get("items", [])))


def texts(activity: dict[str, Any], *, markdown: bool = False) -> Iterator[str]:
    """Every string Teams shows: text, facts, titles, alt text, summary, a RichTextBlock's runs.

    A RichTextBlock comes as its runs joined, unless `markdown`: then only what Teams reads
    as markdown comes (a TextRun reads none; `runs` has those).
    """
    for key in ("text", "summary"):
        if key in activity:
            yield activity[key]
    if "attachments" not in activity:
        return
    card = activity["attachments"][0]["content"]
    for element in elements(activity):
        if "text" in element:
            yield element["text"]
        if "inlines" in element and not markdown:
            yield "".join(run["text"] for run in element["inlines"])
        if "altText" in element:
            yield element["altText"]
        for fact in element.get("facts", []):
            yield fact["title"]
            yield fact["value"]
        for action in element.get("actions", []):
            yield action["title"]
    for action in card.get("actions", []):
        yield action["title"]


def runs(activity: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Every TextRun of the card's RichTextBlocks: shown as written, never read as markdown."""
    if "attachments" not in activity:
        return
    for element in elements(activity):
        yield from element.get("inlines", [])
