"""`GET /privacy` and `GET /terms`: what this installation reads, keeps and never does.

The Teams app manifest links both (`deploy/teams/manifest.json`), and Teams shows the links
to everyone who adds the app. The pages are written from this process's own settings, so
the retention times they state are the ones in force; they are rendered once, at start-up.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from datetime import timedelta

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from bot.authz import IDENTITY_CACHE_TTL_S
from bot.config import DEDUPE_TTL_S, Settings
from bot.ops.audit import AUDIT_STREAM, AUDIT_STREAM_MAXLEN

__all__ = ["page_routes", "privacy_page", "terms_page"]

_HEADERS = {
    "Cache-Control": "public, max-age=3600",
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
    "X-Content-Type-Options": "nosniff",
}


def _span(seconds: float) -> str:
    """`24 hours`, `5 minutes`, `30 seconds`, `7 days`: the largest whole unit."""
    whole = timedelta(seconds=seconds)
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        count, rest = divmod(whole.total_seconds(), size)
        if count and not rest:
            return f"{int(count)} {unit}{'s' * (count != 1)}"
    return f"{seconds:g} second{'s' * (seconds != 1)}"


def _page(title: str, sections: Sequence[tuple[str, Sequence[str]]]) -> str:
    body = "".join(
        f"<h2>{html.escape(heading)}</h2><ul>{''.join(f'<li>{item}</li>' for item in items)}</ul>"
        for heading, items in sections
    )
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>runai-why: {html.escape(title)}</title>"
        "<style>body{font:16px/1.5 system-ui,sans-serif;max-width:42rem;margin:2rem auto;"
        "padding:0 1rem}code{font-size:90%}</style></head>"
        f"<body><h1>runai-why: {html.escape(title)}</h1>{body}</body></html>"
    )


def privacy_page(settings: Settings) -> str:
    """What the bot reads, what it keeps and for how long, and what it never does."""
    where = "Redis" if settings.redis.url is not None else "the memory of one process"
    reads = [
        "Your question, as you sent it to the bot in Slack or Microsoft Teams, and your user "
        "ID. Your e-mail address, from Slack's or Teams' member directory, to find your "
        "Run:ai user.",
        "From the Run:ai control plane, with a read-only service account: the workload you "
        "asked about (status, events, specification, pods, history, metrics), its cluster "
        "and nodes, and your own Run:ai access rules.",
        "Where the operator set it up, from Kubernetes: that workload's pods, container logs "
        "and events, and its node. Never Secrets.",
    ]
    keeps = [
        f"Where: {where}. Anything the bot shows passes its redaction first: credentials in "
        "logs and events are replaced by markers such as <code>[REDACTED:aws-secret-key]</code>.",
        f"A thread's conversation (what was asked, a pending question, the last answer): "
        f"{_span(settings.conversation.state_ttl_s)} after its last message.",
        f"Who you are (your e-mail address): {_span(IDENTITY_CACHE_TTL_S)}. Your access "
        f"decision: {_span(settings.authz.cache_ttl_s)}.",
        f"A finished answer, shared with people asking about the same workload: "
        f"{_span(settings.diagnosis.cache_ttl_s)}.",
        f"A request waiting to be answered: until answered (at most "
        f"{_span(settings.queue.deadline_s)} waiting); the note that it was received, so it "
        f"is answered once: {_span(DEDUPE_TTL_S)} (in Teams "
        f"{_span(settings.teams.replay_window_s)}, as long as its sign-in token lasts). "
        "A request that failed "
        f"{settings.queue.max_deliveries} times is kept for the operators in a capped "
        "dead-letter stream.",
        f"Memory charts shown in Teams answers: {_span(settings.teams.chart_ttl_s)}.",
        f"An audit trail of one entry per diagnosis: platform, team, channel and user IDs, "
        f"cluster, workload, outcome, category, counts and timings, never evidence text; in "
        f"the log and, with Redis, in the stream <code>{AUDIT_STREAM}</code>, which keeps "
        f"about the newest {AUDIT_STREAM_MAXLEN:,} entries.",
    ]
    never = [
        "Change anything: it sends Run:ai and Kubernetes read requests only (and the Run:ai "
        "sign-in), and it never runs, stops or deletes a workload.",
        "Show you a workload that your own Run:ai access does not let you read.",
        "Send what it reads anywhere but the conversation you asked in, or to an AI model: "
        "its verdicts come from fixed rules.",
        "Follow instructions found in logs, events or commands: it quotes them as data.",
    ]
    return _page(
        "privacy",
        [("What it reads", reads), ("What it keeps", keeps), ("What it never does", never)],
    )


def terms_page() -> str:
    """The terms of use: a read-only aid run by the organisation that installed it."""
    terms = [
        "runai-why is run by the organisation that installed it, usually its ML platform "
        "team: ask them about this installation.",
        "It explains why a Run:ai workload failed from the data it could read when asked. "
        "What it could not read, it says it could not read; check the evidence before "
        "acting on an answer.",
        "Ask only about workloads you are allowed to see: it answers within your own Run:ai "
        "access and refuses the rest.",
        "The software is open source under the Apache License 2.0 and provided as is, "
        "without warranty of any kind.",
    ]
    return _page("terms of use", [("Terms of use", terms)])


def page_routes(settings: Settings) -> list[Route]:
    """`GET /privacy` and `GET /terms`, rendered once from `settings`."""
    pages = {"/privacy": privacy_page(settings), "/terms": terms_page()}

    def route(path: str, text: str) -> Route:
        async def serve(_: Request) -> Response:
            return HTMLResponse(text, headers=_HEADERS)

        return Route(path, serve, methods=["GET"])

    return [route(path, text) for path, text in pages.items()]
