"""The httpx client under both API clients: one that keeps no cookies."""

from __future__ import annotations

from typing import Any

import httpx

__all__ = ["CookielessClient"]


class _NoCookies(httpx.Cookies):
    """A cookie jar that keeps nothing a server sets."""

    def extract_cookies(self, response: httpx.Response) -> None:
        """Ignore the response's `Set-Cookie` headers."""


class CookielessClient(httpx.AsyncClient):
    """`httpx.AsyncClient` that never keeps a cookie, so never sends one either.

    Run:ai and Kubernetes authenticate every request with a bearer token: a cookie a server
    (or a proxy before it) sets is state the bot has no use for. httpx would also build a
    urllib request for every response to look for them (about 50 us of CPU per GET).
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._cookies = _NoCookies()
