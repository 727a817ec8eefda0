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

__all__ = ["check_activity", "elements", "texts"]

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
}
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
    if kind == "Container":
        for i, item in enumerate(element["items"]):
            errors += _check_element(item, f"{where}.items[{i}]")
    if kind == "ActionSet":
        for i, action in enumerate(element["actions"]):
            errors += _check_action(action, f"{where}.actions[{i}]")
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


def texts(activity: dict[str, Any]) -> Iterator[str]:
    """Every string Teams reads as markdown or shows: text, facts, titles, alt text, summary."""
    for key in ("text", "summary"):
        if key in activity:
            yield activity[key]
    if "attachments" not in activity:
        return
    card = activity["attachments"][0]["content"]
    for element in elements(activity):
        if "text" in element:
            yield element["text"]
        if "altText" in element:
            yield element["altText"]
        for fact in element.get("facts", []):
            yield fact["title"]
            yield fact["value"]
        for action in element.get("actions", []):
            yield action["title"]
    for action in card.get("actions", []):
        yield action["title"]
