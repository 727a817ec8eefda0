"""Where a `response_url` may point: Slack's own hosts only, checked once, as a request comes in.

A `response_url` is a URL the request names for its answers, and the bot posts private
replies there. A signed body is Slack's, but a leaked signing secret or a bug upstream must
not turn the bot into a poster to any URL (an internal service, a metadata endpoint). So a
request's `response_url` is kept only when it is `https://hooks.slack.com/…`,
`https://hooks.<API host>/…` (GovSlack's `hooks.slack-gov.com`) or on the configured Web API
origin (`SLACK_API_URL`: the tests' fake Slack); anything else is logged (scheme and host,
never the path, which is the secret part) and removed before any listener reads the request
(by Bolt's middleware here, or by the gate's fast lane). Without it,
private replies go through `chat.postEphemeral` as for events.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import structlog
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse

__all__ = ["HOOKS_HOST", "Middleware", "ResponseUrls"]

HOOKS_HOST = "hooks.slack.com"
_DEFAULT_PORTS = {"https": 443, "http": 80}
#: Printable ASCII without spaces or backslashes: nothing two URL parsers could read apart.
_PLAIN = re.compile(r"[!-\[\]-~]+")
_HOST_SHOWN = 253


Middleware = Callable[..., Awaitable[BoltResponse]]


def _origins(scheme: str, host: str, port: int | None) -> set[tuple[str, str]]:
    """(scheme, netloc) pairs that name this origin: with and without its default port."""
    default = _DEFAULT_PORTS.get(scheme)
    ports = {port or default}
    if port in {None, default}:
        ports.add(None)
    shown = f"[{host}]" if ":" in host else host
    return {(scheme, shown if p is None else f"{shown}:{p}") for p in ports}


def _described(url: object) -> dict[str, str | None]:
    """What may be logged of a refused URL: its scheme and host, never its path or query."""
    if not isinstance(url, str) or not _PLAIN.fullmatch(url):
        return {"scheme": None, "host": None}
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        return {"scheme": None, "host": None}
    return {"scheme": parts.scheme[:16], "host": (host or "")[:_HOST_SHOWN]}


@dataclass(frozen=True)
class ResponseUrls:
    """The origins a `response_url` may have, for one configured Slack API base URL."""

    origins: frozenset[tuple[str, str]]

    @classmethod
    def for_api(cls, api_url: str) -> ResponseUrls:
        """Slack's hooks host, and the origin of `api_url` (plus its `hooks.` host on https)."""
        api = urlsplit(api_url)
        host = (api.hostname or "").lower()
        origins = _origins("https", HOOKS_HOST, None)
        if api.scheme in _DEFAULT_PORTS and host:
            origins |= _origins(api.scheme, host, api.port)
        if api.scheme == "https" and host:
            origins |= _origins("https", f"hooks.{host}", None)
        return cls(frozenset(origins))

    def permits(self, url: object) -> bool:
        """Whether the bot may post to `url`: plain, no credentials, one of the origins."""
        if not isinstance(url, str) or not _PLAIN.fullmatch(url):
            return False
        try:
            parts = urlsplit(url)
        except ValueError:
            return False
        return (
            (parts.scheme, parts.netloc.lower()) in self.origins
            and parts.path.startswith("/")
            and not parts.fragment
        )

    def keep_only_slack(self, body: dict[str, Any]) -> bool:
        """Drop (and log) `body`'s `response_url` unless it is Slack's; False if it was dropped."""
        url = body.get("response_url")
        if url is None or self.permits(url):
            return True
        structlog.get_logger(__name__).warning("slack_response_url_refused", **_described(url))
        del body["response_url"]
        return False

    def middleware(self) -> Middleware:
        """A Bolt middleware that removes a foreign `response_url` before any listener runs.

        It runs for every request, over HTTP and Socket Mode alike, and listeners read the
        request it leaves (`body`, `command`, `shortcut` are that one dict).
        """

        async def only_slack_response_urls(
            req: AsyncBoltRequest,
            next: Callable[[], Awaitable[BoltResponse]],  # noqa: A002 - Bolt's argument name
        ) -> BoltResponse:
            if not self.keep_only_slack(req.body):
                req.context.pop("response_url", None)
            return await next()

        return only_slack_response_urls
