"""The simulator's control endpoint: change the served world while a client runs against it.

Off unless the simulator is built with `control=True` (`runai-why sim --control`), and only
for loopback clients: `PUT /_sim/workloads/{id}` adds or replaces one workload entry (the
scenario format: `workload`, `pods`, `events`, ...), `DELETE /_sim/workloads/{id}` removes
it. Nothing under `/_sim/` needs a Run:ai token, and nothing of it exists on the real API.
"""

from __future__ import annotations

import ipaddress
import json
import threading
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from runai_sim.faults import error_body
from runai_sim.scenario_parts import WorkloadEntry

if TYPE_CHECKING:
    from starlette.requests import Request

    from runai_sim.scenario import Scenario

__all__ = ["CONTROL_PREFIX", "MAX_ENTRY_BYTES", "WorkloadControl", "is_loopback"]

CONTROL_PREFIX = "/_sim/"
#: A workload entry is a few kilobytes; a megabyte is far more than any scenario's entry.
MAX_ENTRY_BYTES = 1 << 20


def is_loopback(host: str | None) -> bool:
    """Whether `host` (an address or `localhost`) is a loopback address."""
    if not host:
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _error(status: int, details: str) -> JSONResponse:
    return JSONResponse(error_body(status, details), status)


class WorkloadControl:
    """Adds, replaces and removes a scenario's workload entries, under the simulator's lock."""

    def __init__(self, scenario: Scenario, lock: threading.Lock) -> None:
        self._scenario = scenario
        self._lock = lock

    def routes(self) -> list[Route]:
        """`PUT` and `DELETE` on `/_sim/workloads/{workload_id}`."""
        path = CONTROL_PREFIX + "workloads/{workload_id}"
        return [
            Route(path, self._put, methods=["PUT"]),
            Route(path, self._delete, methods=["DELETE"]),
        ]

    def put(self, entry: WorkloadEntry) -> bool:
        """Add `entry`, or replace the entry with its id; True when it replaced one."""
        with self._lock:
            workloads = self._scenario.workloads
            for index, known in enumerate(workloads):
                if known.id == entry.id:
                    workloads[index] = entry
                    return True
            workloads.append(entry)
            return False

    def delete(self, workload_id: str) -> bool:
        """Remove the entry with `workload_id`; False when there was none."""
        with self._lock:
            workloads = self._scenario.workloads
            kept = [e for e in workloads if e.id != workload_id]
            removed = len(kept) != len(workloads)
            workloads[:] = kept
            return removed

    @staticmethod
    def _refused(request: Request) -> Response | None:
        host = request.client.host if request.client else None
        if not is_loopback(host):
            return _error(403, "The control endpoint answers loopback clients only.")
        return None

    async def _put(self, request: Request) -> Response:
        if (refused := self._refused(request)) is not None:
            return refused
        workload_id = str(request.path_params["workload_id"])
        body = await request.body()
        if len(body) > MAX_ENTRY_BYTES:
            return _error(413, f"A workload entry may be at most {MAX_ENTRY_BYTES} bytes.")
        try:
            data: Any = json.loads(body)
            entry = WorkloadEntry.model_validate(data)
        except json.JSONDecodeError as exc:
            return _error(400, f"Not valid JSON: {exc.msg} (line {exc.lineno}).")
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or '<entry>'}: {e['msg']}"
                for e in exc.errors()
            )
            return _error(400, f"Not a workload entry: {problems}")
        if entry.id != workload_id:
            return _error(400, f"workload.id {entry.id!r} is not the path's {workload_id!r}.")
        replaced = self.put(entry)
        return JSONResponse({"id": entry.id, "replaced": replaced}, 200 if replaced else 201)

    async def _delete(self, request: Request) -> Response:
        if (refused := self._refused(request)) is not None:
            return refused
        workload_id = str(request.path_params["workload_id"])
        if not self.delete(workload_id):
            return _error(404, f"Workload {workload_id} not found.")
        return Response(status_code=204)
