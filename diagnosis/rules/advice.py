"""What advice may say, given what was collected: real names, and no command the bot ran.

When Kubernetes (Tier 2) access is configured, the bot has already described the pod, read
its events and the failed container's log; advice then points at the evidence above instead
of asking the user to run the same `kubectl` again. Without Tier 2 it names the real pod,
container and namespace, never `<pod>` placeholders when the names are known.
"""

from __future__ import annotations

import re

from diagnosis.evidence import Evidence, Signal
from diagnosis.lexicon import SignalKind, extract_detail
from diagnosis.runs import latest_run_first

__all__ = [
    "DESCRIBE",
    "EVENTS",
    "LOGS",
    "describe_pod",
    "failing_pod",
    "get_events",
    "kubectl_logs",
    "log_lines",
    "logs_read",
    "namespace",
    "ran",
    "restarted",
]

DESCRIBE = "kubectl describe pod"
EVENTS = "kubectl get events"
LOGS = "kubectl logs"
_FAILED = frozenset({"failed", "error", "oomkilled", "crashloopbackoff", "init:error"})
_LOOPING = re.compile(r"CrashLoopBackOff|back-off restarting failed container", re.IGNORECASE)


def namespace(ev: Evidence) -> str:
    """The workload's namespace, else Run:ai's default `runai-<project>` mapping."""
    w = ev.workload
    if w.namespace:
        return w.namespace
    return f"runai-{w.project_name}" if w.project_name else "<namespace>"


def failing_pod(ev: Evidence) -> str:
    """The pod to look at: the latest run's first to fail (`diagnosis.runs`), else the first."""
    ranked = latest_run_first(ev.pods or (), _FAILED)
    return ranked[0].name if ranked else "<pod>"


def _container(ev: Evidence, container: str | None) -> str | None:
    if container:
        return container
    for pod in ev.pods or ():
        if pod.containers:
            return pod.containers[0].name
    return None


def ran(ev: Evidence, command: str) -> bool:
    """Whether the bot ran `command` (describe pod, get events) and it did not fail."""
    if not ev.tier2:
        return False
    return not any(g.source == "kubectl" or g.source.startswith(command) for g in ev.gaps)


def logs_read(ev: Evidence) -> bool:
    """Whether the bot read a container's log (it cited a line, or said it had none)."""
    sources = [s.source for s in ev.of(SignalKind.LOG_ERROR)]
    sources += [line.source for line in ev.tier2_lines]
    return any(source.startswith(LOGS) for source in sources)


def log_lines(ev: Evidence, container: str | None = None) -> list[str]:
    """Keys of the failing log lines read (of `container` when given)."""
    signals = ev.of(SignalKind.LOG_ERROR)
    if container is None:
        return [s.key for s in signals]
    return [s.key for s in signals if s.key.startswith(f"log:{container}:")]


def _looping(signal: Signal, container: str | None) -> bool:
    """A CrashLoopBackOff of `container`: the kubelet restarted it.

    A main container's loop may name no container (a pod's phase); an init container's must
    name it, or a pod's `Init:CrashLoopBackOff` would count as the main container's restart.
    """
    named = signal.detail or extract_detail("container", signal.text)
    if signal.kind is SignalKind.CRASHLOOP:
        return named in {None, container}
    return named == container and bool(_LOOPING.search(f"{signal.reason or ''} {signal.text}"))


def restarted(ev: Evidence, container: str | None) -> bool | None:
    """Whether the failed container restarted, so that its failed run's log is `--previous`.

    True on a restart count above 0 or a last terminated state (`kubectl describe pod`), or a
    CrashLoopBackOff (the kubelet restarting it); False when the pod's description shows
    neither, or when the restart policy is Never; None when nothing says (a gap, not a no).
    """
    name = _container(ev, container)
    pod = failing_pod(ev)
    described = [r for r in ev.restarts if r.pod == pod and r.container == name]
    if any(r.restart_count > 0 or r.last_terminated for r in described):
        return True
    if any(_looping(s, name) for s in ev.of(SignalKind.CRASHLOOP, SignalKind.INIT_FAILED)):
        return True
    if described:
        return False
    policy = ev.spec.spec.restart_policy if ev.spec and ev.spec.spec else None
    return False if (policy or "").lower() == "never" else None


def kubectl_logs(ev: Evidence, container: str | None) -> str:
    """`kubectl logs` for the real pod, container and namespace; `--previous` only after a restart.

    `kubectl logs --previous` of a container that never restarted fails ("previous terminated
    container not found"): its current log is the failed run's. When nothing says whether it
    restarted, the current log is given and `--previous` named as the alternative.
    """
    name = _container(ev, container)
    part = f" -c {name}" if name else ""
    command = f"kubectl logs {failing_pod(ev)}{part} -n {namespace(ev)}"
    again = restarted(ev, container)
    if again:
        return f"`{command} --previous`"
    if again is None:
        return f"`{command}` (add `--previous` if it restarted)"
    return f"`{command}`"


def describe_pod(ev: Evidence) -> str:
    """`kubectl describe pod` for the real pod and namespace."""
    return f"`kubectl describe pod {failing_pod(ev)} -n {namespace(ev)}`"


def get_events(ev: Evidence) -> str:
    """`kubectl get events` for the real pod and namespace."""
    pod = failing_pod(ev)
    return f"`kubectl get events -n {namespace(ev)} --field-selector involvedObject.name={pod}`"
