"""One keep-alive HTTP session per process for every Slack Web API client.

slack_sdk's `AsyncWebClient` given no `session` opens an `aiohttp.ClientSession` for every
call and closes it after (`slack_sdk.web.async_internal_utils._request_with_session`): a new
TCP connection, and against Slack a new TLS handshake, per call, several calls per answer.
`SlackSession` is the one session of a process instead, a pool of keep-alive connections
that every client of the process shares (`SharedSessionClient`, the Bolt twin and the
clients Bolt copies per request). aiohttp binds a session to the running event loop, and
the clients are built before `serve`'s loop runs, so the session is opened on first use,
in each loop that uses it (a process has one; a test may run several).

Closed once, after the last Slack call (`SlackFrontEnd.aclose`); a call after that gets a
session of its own again, as slack_sdk does without one, so closing never breaks a call.
"""

from __future__ import annotations

import asyncio
import weakref
from typing import Any

import aiohttp
from slack_sdk.web.async_client import AsyncWebClient

__all__ = ["MAX_CONNECTIONS", "SLACK_TIMEOUT_S", "SharedSessionClient", "SlackSession"]

SLACK_TIMEOUT_S = 30
"""Seconds a Web API call may take, retries apart (slack_sdk's default, stated here)."""

MAX_CONNECTIONS = 100
"""Connections open at once, over every Slack host: beyond, calls wait for one (within
their timeout) instead of opening more sockets. aiohttp's default, stated here."""

KEEPALIVE_S = 15.0
"""How long an idle connection is kept (aiohttp's default): shorter than servers keep
theirs, so the client closes an idle connection before the server can close it under a call."""


class SlackSession:
    """The shared `aiohttp.ClientSession` of a process's Slack clients, opened on first use."""

    def __init__(self, *, timeout_s: float) -> None:
        self._timeout_s = timeout_s
        # One per event loop (a session is bound to the loop it was made in); a process has
        # one loop, a test may run several. A finished loop's entry goes with the loop.
        self._sessions: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, aiohttp.ClientSession
        ] = weakref.WeakKeyDictionary()
        self._closed = False

    def get(self) -> aiohttp.ClientSession | None:
        """The running loop's session, opened on first use; None outside a loop or once closed.

        None is what slack_sdk is given when there is no session: it opens one for the call.
        """
        if self._closed:
            return None
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # read outside the loop (a copy): no call can happen there
            return None
        session = self._sessions.get(loop)
        if session is None:
            session = self._sessions[loop] = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(
                    limit=MAX_CONNECTIONS, keepalive_timeout=KEEPALIVE_S
                ),
                # as slack_sdk's own session per call: the whole call, retries apart
                timeout=aiohttp.ClientTimeout(total=self._timeout_s),
                # a session per call kept no cookies from one call to the next: nor does this
                cookie_jar=aiohttp.DummyCookieJar(),
            )
        return session

    @property
    def opened(self) -> bool:
        """Whether a session was opened (and not closed yet)."""
        return any(not session.closed for session in self._sessions.values())

    async def aclose(self) -> None:
        """Close the running loop's session; later calls get a session each, as before.

        Another loop's session can only be closed in that loop: it is dropped here, its
        connections ending with that loop.
        """
        self._closed = True
        session = self._sessions.pop(asyncio.get_running_loop(), None)
        self._sessions.clear()
        if session is not None:
            await session.close()


class SharedSessionClient(AsyncWebClient):
    """An `AsyncWebClient` whose `session` is always its `SlackSession`'s.

    slack_sdk reads `client.session` on every call, and Bolt copies it into the client it
    makes per request, so a session opened after the client was built is still the one
    every call uses.
    """

    def __init__(self, shared: SlackSession, **options: Any) -> None:
        self.shared = shared  # before `AsyncWebClient.__init__`, which assigns `session`
        super().__init__(**options)

    @property
    def session(self) -> aiohttp.ClientSession | None:
        """The process's shared session (None outside the loop, or once it is closed)."""
        return self.shared.get()

    @session.setter
    def session(self, value: aiohttp.ClientSession | None) -> None:
        if value is not None:
            raise ValueError("a SharedSessionClient's session is its SlackSession's")
