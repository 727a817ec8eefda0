"""Running the simulator over real HTTP: in the current loop, in a thread, or from the CLI."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import sys
import threading
from typing import TYPE_CHECKING, Any, Literal

import uvicorn

from runai_sim.app import Simulator
from runai_sim.control import is_loopback
from runai_sim.scenario import Scenario, ScenarioError

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Generator, Iterator
    from pathlib import Path

__all__ = ["run", "serve", "serve_asgi", "serve_in_thread"]

_STARTUP_TIMEOUT_S = 10.0


_TICK_S = 0.1  # uvicorn's main-loop tick (it refreshes the Date header every 10 ticks)
_POLL_S = 0.005
#: How long a stopping server waits for requests in flight before it cancels them.
_GRACEFUL_SHUTDOWN_S = 3


class _NoSignalServer(uvicorn.Server):
    """A uvicorn server that leaves the host process's signal handlers alone."""

    @contextlib.contextmanager
    def capture_signals(self) -> Generator[None]:
        yield


class _PromptServer(_NoSignalServer):
    """One that stops as soon as it is told to and its connections are closed.

    uvicorn's own loop notices `should_exit` at its next 0.1 s tick and then pauses a fixed
    0.1 s more: noticeable when a demo or a test suite starts and stops hundreds of servers.
    An app's background work gets no more time than its requests take (uvicorn's pauses
    give it ~0.1-0.2 s before the app's shutdown), so an app with a lifespan must wait for
    its own background work there, as the bot's does. Used only from the event loop that
    runs it.
    """

    @property
    def should_exit(self) -> bool:
        return self._exit.is_set()

    @should_exit.setter
    def should_exit(self, value: bool) -> None:
        if not hasattr(self, "_exit"):
            self._exit = asyncio.Event()
        if value:
            self._exit.set()
        else:
            self._exit.clear()

    async def main_loop(self) -> None:
        """Run uvicorn's loop, woken by `should_exit` instead of waiting out its tick."""
        counter = 0
        while not await self.on_tick(counter):
            counter = (counter + 1) % 864_000
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._exit.wait(), _TICK_S)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        """Stop as uvicorn does, polling for closed connections instead of fixed 0.1 s pauses."""
        for server in self.servers:
            server.close()
        for sock in sockets or []:
            sock.close()
        for connection in list(self.server_state.connections):
            connection.shutdown()
        try:
            async with asyncio.timeout(self.config.timeout_graceful_shutdown):
                state = self.server_state
                while (state.connections or state.tasks) and not self.force_exit:  # noqa: ASYNC110 - uvicorn's state has no event
                    await asyncio.sleep(_POLL_S)
                for server in self.servers:
                    await server.wait_closed()
        except TimeoutError:
            for task in self.server_state.tasks:
                task.cancel(msg="Task cancelled, timeout graceful shutdown exceeded")
        if not self.force_exit:
            await self.lifespan.shutdown()


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP explicitly: asyncio sets TCP_NODELAY only on sockets whose `proto` says TCP,
    # and without it every reused connection stalls ~40 ms on delayed ACKs.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


def _base_url(host: str, sock: socket.socket) -> str:
    port = sock.getsockname()[1]
    shown = "127.0.0.1" if host in ("", "0.0.0.0") else host  # noqa: S104 - display only.
    if ":" in shown:
        shown = f"[{shown}]"
    return f"http://{shown}:{port}"


def _config(app: Any, lifespan: Literal["on", "off"] = "off", **options: Any) -> uvicorn.Config:
    return uvicorn.Config(
        app,
        log_config=None,
        access_log=False,
        lifespan=lifespan,
        interface="asgi3",
        timeout_graceful_shutdown=_GRACEFUL_SHUTDOWN_S,
        **options,
    )


@contextlib.asynccontextmanager
async def serve_asgi(
    app: Any,  # any ASGI 3 callable (Starlette apps and our Simulator's bound method)
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    lifespan: Literal["on", "off"] = "off",
    **options: Any,
) -> AsyncIterator[str]:
    """Serve any ASGI app in the running event loop; yields its base URL (`http://host:port`).

    `port=0` picks a free ephemeral port; `options` are further `uvicorn.Config` settings.
    The server is shut down when the block exits.
    """
    sock = _bind(host, port)
    server = _PromptServer(_config(app, lifespan, **options))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        async with asyncio.timeout(_STARTUP_TIMEOUT_S):
            while not server.started:
                if task.done():
                    task.result()
                    raise RuntimeError("the server stopped during startup")
                await asyncio.sleep(0.005)
        yield _base_url(host, sock)
    finally:
        server.should_exit = True
        with contextlib.suppress(asyncio.CancelledError):
            await task
        sock.close()


@contextlib.asynccontextmanager
async def serve(simulator: Simulator, host: str = "127.0.0.1", port: int = 0) -> AsyncIterator[str]:
    """Serve `simulator` in the running event loop; yields the base URL (`http://host:port`)."""
    async with serve_asgi(simulator.app, host, port) as base_url:
        yield base_url


class _ThreadState:
    """What the server thread reports back to the thread that started it."""

    def __init__(self) -> None:
        self.ready = threading.Event()
        self.url: str | None = None
        self.error: BaseException | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.stop: asyncio.Event | None = None


@contextlib.contextmanager
def serve_in_thread(simulator: Simulator, host: str = "127.0.0.1", port: int = 0) -> Iterator[str]:
    """Serve `simulator` from a background thread with its own event loop; yields the base URL."""
    state = _ThreadState()

    async def main() -> None:
        state.loop, state.stop = asyncio.get_running_loop(), asyncio.Event()
        async with serve(simulator, host, port) as url:
            state.url = url
            state.ready.set()
            await state.stop.wait()

    def target() -> None:
        try:
            asyncio.run(main())
        except BaseException as exc:  # noqa: BLE001 - handed to the starting thread.
            state.error = exc
        finally:
            state.ready.set()

    thread = threading.Thread(target=target, name="runai-sim", daemon=True)
    thread.start()
    state.ready.wait(_STARTUP_TIMEOUT_S + 5)
    if state.url is None or state.loop is None or state.stop is None:
        thread.join(1)
        raise RuntimeError("the simulator thread did not start") from state.error
    try:
        yield state.url
    finally:
        state.loop.call_soon_threadsafe(state.stop.set)
        thread.join(10)


def run(
    scenario_path: str | Path,
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    token_ttl_s: float = 3600,
    control: bool = False,
) -> None:
    """Serve a scenario file until interrupted (the `runai-why sim` command).

    `control` also serves the control endpoint (`runai_sim.control`), on a loopback
    address only. Raises `ScenarioError` for a bad file or a control endpoint asked for
    on another address, and `OSError` when the port cannot be bound.
    """
    if control and not is_loopback(host):
        raise ScenarioError(
            f"the control endpoint is served on a loopback address only, not {host!r}"
        )
    scenario = Scenario.load(scenario_path)
    simulator = Simulator(scenario, token_ttl_s=token_ttl_s, control=control)
    sock = _bind(host, port)
    creds = scenario.credentials
    base_url = _base_url(host, sock)
    sys.stdout.write(
        f"Run:ai simulator serving {scenario.name} on {base_url} "
        f"(client id {creds.client_id}, secret {creds.client_secret})\n"
    )
    if control:
        sys.stdout.write(
            f"Control endpoint: PUT/DELETE {base_url}/_sim/workloads/<id> (loopback only)\n"
        )
    sys.stdout.flush()
    server = uvicorn.Server(_config(simulator.app))
    try:
        asyncio.run(server.serve(sockets=[sock]))
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
