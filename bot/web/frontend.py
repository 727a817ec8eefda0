"""What a front end (Slack, Teams) gives the process that serves it: one shape for each.

`bot.app` builds the front ends that are configured and composes them alike: their routes
go into the one ASGI app, their `work` into the worker's handlers (keyed by `platform`, the
platform of their work items), and on shutdown each drains what it acknowledged beside the
queue, then (after the worker has stopped) closes its clients.
"""

from __future__ import annotations

from typing import Protocol, TypeVar

from starlette.routing import BaseRoute

__all__ = ["FrontEnd"]

WorkT_co = TypeVar("WorkT_co", covariant=True)


class FrontEnd(Protocol[WorkT_co]):
    """One platform served by the process; `WorkT_co` is the worker's handler type."""

    @property
    def platform(self) -> str:
        """The platform's name (`"slack"`, `"teams"`): its work items' and its poster's key."""
        ...

    @property
    def work(self) -> WorkT_co:
        """What the worker does with this platform's items (`bot.work.Handler`)."""
        ...

    def routes(self) -> list[BaseRoute]:
        """Its HTTP routes; each verifies the sender on the raw request before anything else."""
        ...

    async def drain(self, grace_s: float) -> None:
        """On shutdown, finish within `grace_s` what it sent beside the queue."""
        ...

    async def aclose(self) -> None:
        """Close its clients (after the worker has stopped: the worker's turns use them)."""
        ...
