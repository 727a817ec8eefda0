"""Tier 2's log read: which container's log explains a failed pod, and what reading it adds.

`kubectl logs [--previous]` of that container, its end only: the failing line as signals, or
a line saying what was read when no error line was found or the end was cut.
"""

from __future__ import annotations

from collections.abc import Awaitable

from diagnosis.evidence import Gap, Signal
from diagnosis.kube.log_signals import line_facts, log_signal
from diagnosis.kube.models import ContainerStatus, Pod
from diagnosis.kube.nodes import guarded_read
from diagnosis.kube.reader import KubeReader
from diagnosis.kube.signals import source
from diagnosis.logs import failing_line, read_log_tail
from diagnosis.redact import Redactor
from diagnosis.report import EvidenceLine

__all__ = ["LOG_BYTES", "LOG_LINES", "log_target", "read_log"]

LOG_LINES = 200
"""`tailLines` of a log read: the end of the log, where the traceback is."""

LOG_BYTES = 64_000
"""`limitBytes` of a log read: what one read may return at most."""


def log_target(pod: Pod) -> tuple[ContainerStatus, bool] | None:
    """The container whose logs explain the failure, and whether to read `--previous`.

    An OOM-killed container needs no log to explain it (the kernel killed it mid-line), and
    one that never started (`StartError`) wrote none, so neither is read.
    """
    statuses = [
        s
        for s in (*pod.status.init_container_statuses, *pod.status.container_statuses)
        if not _killed_or_never_started(s)
    ]
    for status in statuses:
        last = status.last_state.terminated
        if last is not None and last.exit_code != 0:
            return status, True
    for status in statuses:
        now = status.state.terminated
        if now is not None and now.exit_code != 0:
            return status, False  # no restart: its current log is the one that failed
    return None


_NO_LOG_REASONS = frozenset({"oomkilled", "starterror", "containercannotrun"})


def _killed_or_never_started(status: ContainerStatus) -> bool:
    return any(
        state.terminated is not None and (state.terminated.reason or "").lower() in _NO_LOG_REASONS
        for state in (status.state, status.last_state)
    )


async def read_log(
    kube: KubeReader,
    namespace: str,
    name: str,
    status: ContainerStatus,
    previous: bool,  # noqa: FBT001
    *,
    gaps: list[Gap],
    redactor: Redactor,
    rank: int | None = None,
) -> tuple[list[Signal], list[EvidenceLine]]:
    """`kubectl logs [--previous]` of the failed container: its failing line, or what was read.

    The read always holds the end of the log (`read_log_tail`); when even one line did not
    fit the byte limit, the report says the end was not read instead of "no error line".
    """
    command = "kubectl logs --previous" if previous else "kubectl logs"
    cite = source(command, namespace)

    def read(lines: int) -> Awaitable[str]:
        return kube.get_logs(
            namespace, name, status.name, previous=previous, tail_lines=lines, limit_bytes=LOG_BYTES
        )

    log = await guarded_read(
        read_log_tail(read, tail_lines=LOG_LINES, limit_bytes=LOG_BYTES),
        f"logs of container {status.name} ({cite})",
        gaps,
        cite,
    )
    if log is None:
        return [], []
    line = failing_line(log.text)
    signals: list[Signal] = []
    if line is not None:
        quoted = log_signal(
            line, container=status.name, cite=cite, redactor=redactor, pod=name, rank=rank
        )
        signals = [quoted, *line_facts(quoted, line.text, log=log.text, redactor=redactor)]
    which = "previous logs" if previous else "current logs (it never restarted)"
    if log.cut:
        text = (
            f"The {which} of container {status.name} in pod {name} were cut before their end: "
            f"{log.describe()}"
        )
        text += "; the part read shows no error line" if line is None else ""
    elif line is None:
        text = (
            f"The {which} of container {status.name} in pod {name} show no error line "
            f"({log.describe()})"
        )
    else:
        return signals, []
    return signals, [EvidenceLine(text=text, source=cite)]
