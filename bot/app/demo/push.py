"""The demo's push side: the console "channel" can watch a project, and a workload can fail.

`watch ml-team on prod-a` subscribes the console as it would a Slack channel; `/fail NAME`
makes that demo workload fail now (through the simulator, as its control endpoint does),
then polls at once instead of waiting for `WATCH_INTERVAL_S`, and answers what the poll
queued through the same queue, journal and handler as `serve` does, in this process.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from datetime import UTC, datetime

from bot.app.backends import Backends
from bot.app.demo.console import BOT, render_reply
from bot.authz import Authorizer
from bot.conversation import Reply, Responder, StateStore
from bot.push import ConsolePoster, MemoryKv, Planner, PushWork
from bot.watch.commands import WatchCommands
from bot.watch.poller import WatchPoller
from bot.watch.subscriptions import Subscriptions
from bot.work import MemoryWorkQueue
from runai_sim.scenario import Scenario

__all__ = ["FAIL_COMMAND", "DemoPush"]

FAIL_COMMAND = "/fail"


class _Pushed:
    """Prints a pushed message, numbered, saying which thread it is in."""

    def __init__(
        self, write: Callable[[str], None], ids: itertools.count[int], thread: str | None
    ) -> None:
        self._write, self._ids, self._thread = write, ids, thread
        self._root: str | None = None

    def thread(self) -> str | None:
        return self._thread or self._root

    async def post(self, reply: Reply) -> str:
        ref = str(next(self._ids))
        if self._thread is None:
            self._root = ref
        self._show(ref, reply)
        return ref

    async def update(self, ref: str, reply: Reply) -> None:
        self._show(ref, reply)

    def _show(self, ref: str, reply: Reply) -> None:
        where = f"in the thread of [{self._thread}]" if self._thread else "to the channel"
        self._write(f"{BOT}[{ref}] (posted {where}, unasked)\n{render_reply(reply)}\n")


class DemoPush:
    """Watches, the poller and the push handler of one demo session."""

    def __init__(
        self,
        up: Backends,
        scenario: Scenario,
        store: StateStore,
        write: Callable[[str], None],
        authorizer: Authorizer,
    ) -> None:
        kv, ids = MemoryKv(), itertools.count(1)
        self._up, self._scenario, self._write = up, scenario, write
        self._queue = MemoryWorkQueue(max_items=100)
        subscriptions = Subscriptions(kv)
        self.commands = WatchCommands(up.runai, subscriptions, postable={"console"})

        def responder(thread: str | None) -> Responder:
            return _Pushed(write, ids, thread)

        self._work = PushWork(
            runai=up.runai,
            kube=up.kube,
            store=store,
            planner=Planner(kv, window_s=6 * 3600, max_posts_per_h=20),
            posters={"console": ConsolePoster(responder)},
            authorizer=authorizer,
            clock=lambda: scenario.now,
        )
        self._poller = WatchPoller(
            up.runai,
            up.runai,
            kv,
            subscriptions,
            self._queue,
            authorizer=authorizer,
            interval_s=60,
            storm_threshold=5,
        )

    async def fail(self, name: str) -> None:
        """Make the demo workload `name` fail now, then poll and answer what was found."""
        simulator = self._up.simulator
        entry = next((e for e in self._scenario.workloads if e.workload.get("name") == name), None)
        if simulator is None or entry is None:
            self._write(f"{BOT}(demo) No demo workload is named {name!r}.\n")
            return
        now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        failed = entry.workload | {"phase": "Failed", "phaseUpdatedAt": now}
        simulator.workloads.put(entry.model_copy(update={"workload": failed}))
        self._write(f"{BOT}(demo) {name} failed just now; the watch poller looks.\n")
        await self._poller.poll_once()
        for delivery in await self._queue.take("demo", 100, 0):
            if delivery.item is None:
                continue
            journal = self._queue.journal(delivery.item.id)
            await self._work.run(delivery.item, journal, await journal.load())
            await self._queue.finish(delivery)
