"""Pure extraction of `Signal`s from Kubernetes objects: container states and events.

The container that was killed is the one cited, whichever position it has in the status
list, init containers included. A pod that Succeeded has no failure, whatever a sidecar's
exit code says; an exit code 0 is never a failure signal (it is only cited when Run:ai
reports a failure that nothing explains).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import datetime

from diagnosis.evidence import Restarts, Signal
from diagnosis.kube.event_models import KubeEvent
from diagnosis.kube.models import ContainerState, ContainerStatus, Pod
from diagnosis.lexicon import SignalKind, extract_detail
from diagnosis.redact import Redactor, shorten
from diagnosis.signals import pull_subcause, start_cause, text_signals

__all__ = [
    "container_signals",
    "event_signals",
    "pod_rank",
    "restarts_of",
    "source",
]

_PULL_WAITING = frozenset(
    {"imagepullbackoff", "errimagepull", "invalidimagename", "errimageneverpull"}
)
_CONFIG_ERRORS = frozenset({"createcontainerconfigerror", "createcontainererror"})
#: The runtime could not start the process: the termination message says why.
_START_ERRORS = frozenset({"starterror", "containercannotrun"})
_START_WAITING = frozenset({"createcontainererror", "runcontainererror", "starterror"})


def source(command: str, namespace: str) -> str:
    """The skill's citation label: `kubectl describe pod, namespace runai-ml-team`."""
    return f"{command}, namespace {namespace}"


def _terminated(
    pod: Pod,
    status: ContainerStatus,
    which: str,
    state: ContainerState,
    *,
    init: bool,
    cite: str,
    r: Redactor,
) -> Iterator[Signal]:
    term = state.terminated
    succeeded = (pod.status.phase or "").lower() == "succeeded"
    if term is None or (succeeded and term.exit_code != 0):
        return  # a pod that Succeeded did not fail, whatever a sidecar's exit code says
    if term.exit_code == 0 and (init or which == "lastState"):
        return  # an init container that finished, or a restart after a clean exit
    kind_of = "init container" if init else "container"
    what = (
        f"{kind_of} {status.name} {which}: terminated, reason {term.reason or 'none'}, "
        f"exit code {term.exit_code}"
    )
    started = (term.reason or "").lower() not in _START_ERRORS or not term.message
    if not started:
        what += f": {term.message}"
    if term.signal:
        what += f", signal {term.signal}"
    if status.restart_count:
        what += f", restarted {status.restart_count} times"
    base = f"k8s:{pod.name}:{status.name}:{which}"
    common = {
        "at": term.finished_at,
        "source": cite,
        "origin": f"pod {pod.name}",
        "reason": term.reason,
    }
    text = shorten(r.clean(what))
    if term.exit_code == 0:  # cited when nothing else explains a failure; never a verdict
        yield Signal(
            kind=SignalKind.EXIT_CODE,
            text=text,
            detail=status.name,
            exit_code=0,
            key=f"{base}:exit",
            **common,
        )
        return
    if (term.reason or "").lower() == "oomkilled":
        yield Signal(
            kind=SignalKind.OOM_KILLED, text=text, detail=status.name, key=f"{base}:oom", **common
        )
    if init:
        yield Signal(
            kind=SignalKind.INIT_FAILED, text=text, detail=status.name, key=f"{base}:init", **common
        )
    if not started:
        cause = start_cause(term.message or "", r)
        yield Signal(
            kind=SignalKind.START_ERROR, text=text, detail=cause, key=f"{base}:start", **common
        )
    yield Signal(
        kind=SignalKind.EXIT_CODE,
        text=text,
        detail=status.name,
        exit_code=term.exit_code,
        key=f"{base}:exit",
        **common,
    )


def _waiting(
    pod: Pod, status: ContainerStatus, *, init: bool, cite: str, at: datetime | None, r: Redactor
) -> Iterator[Signal]:
    wait = status.state.waiting
    if wait is None or not wait.reason:
        return
    reason = wait.reason.lower()
    message = wait.message or ""
    kind_of = "init container" if init else "container"
    text = shorten(
        r.clean(f"{kind_of} {status.name} waiting: {wait.reason}: {message}".rstrip(": "))
    )
    base = f"k8s:{pod.name}:{status.name}:waiting"
    common = {
        "at": at,
        "source": cite,
        "origin": f"pod {pod.name}",
        "reason": wait.reason,
        "text": text,
    }
    if reason in _PULL_WAITING:
        subcause = pull_subcause(f"{wait.reason} {message}")
        yield Signal(kind=SignalKind.IMAGE_PULL, detail=subcause, key=f"{base}:pull", **common)
    elif reason == "crashloopbackoff":
        kind = SignalKind.INIT_FAILED if init else SignalKind.CRASHLOOP
        yield Signal(kind=kind, detail=status.name, key=f"{base}:loop", **common)
    elif reason in _CONFIG_ERRORS and (volume := extract_detail("volume", message)):
        yield Signal(kind=SignalKind.MOUNT_FAILED, detail=volume, key=f"{base}:config", **common)
    elif reason in _START_WAITING and message:
        cause = start_cause(message, r)
        yield Signal(kind=SignalKind.START_ERROR, detail=cause, key=f"{base}:start", **common)


#: Labels whose value is the pod's rank among its job's pods (an Indexed Job's completion
#: index, a LeaderWorkerSet's worker index: what launchers pass as the node rank).
RANK_LABELS = (
    "batch.kubernetes.io/job-completion-index",
    "leaderworkerset.sigs.k8s.io/worker-index",
)


def pod_rank(pod: Pod) -> int | None:
    """The pod's rank: its containers' `RANK` environment variable, else a rank label."""
    ranked = next((c.rank for c in pod.spec.containers if c.rank is not None), None)
    if ranked is not None:
        return ranked
    labels = pod.metadata.labels
    found = next((labels[k] for k in RANK_LABELS if labels.get(k, "").isdigit()), None)
    return int(found) if found is not None else None


def container_signals(pod: Pod, cite: str, redactor: Redactor) -> Iterator[Signal]:
    """Signals from every init and main container's state and last state, and the pod status.

    Each is about this pod, and its rank when the pod says.
    """
    about = {"pod": pod.name, "rank": pod_rank(pod)}
    for signal in _container_signals(pod, cite, redactor):
        yield signal.model_copy(update=about)


def _container_signals(pod: Pod, cite: str, redactor: Redactor) -> Iterator[Signal]:
    status = pod.status
    groups = ((True, status.init_container_statuses), (False, status.container_statuses))
    for init, statuses in groups:
        for container in statuses:
            for which, state in (("state", container.state), ("lastState", container.last_state)):
                yield from _terminated(
                    pod, container, which, state, init=init, cite=cite, r=redactor
                )
            yield from _waiting(
                pod, container, init=init, cite=cite, at=status.start_time, r=redactor
            )
    if status.reason:  # `Evicted`, `DeadlineExceeded`, `NodeLost`, ... with the kubelet's why
        deadline = pod.spec.active_deadline_seconds
        for signal in text_signals(
            status.reason,
            status.message,
            at=None,
            source=cite,
            origin=f"pod {pod.name} status",
            key=f"k8s:{pod.name}:{status.reason.lower()}",
            redactor=redactor,
        ):
            if signal.kind is SignalKind.MAX_DURATION and deadline is not None:
                signal = signal.model_copy(update={"detail": str(deadline)})  # noqa: PLW2901
            yield signal
    for cond in status.conditions:
        if cond.type == "DisruptionTarget" and (cond.status or "").lower() == "true":
            yield from text_signals(
                cond.reason,
                cond.message,
                at=cond.last_transition_time,
                source=cite,
                origin=f"pod {pod.name} condition DisruptionTarget",
                key=f"k8s:{pod.name}:disruption",
                redactor=redactor,
            )


def event_signals(events: Iterable[KubeEvent], cite: str, redactor: Redactor) -> Iterator[Signal]:
    """The system lexicon over Kubernetes events (kubelet, scheduler, node controller)."""
    for index, event in enumerate(events):
        pod = event.involved_name if (event.involved_kind or "Pod") == "Pod" else None
        for signal in text_signals(
            event.reason,
            event.message,
            at=event.last_timestamp,
            source=cite,
            origin="event",
            key=f"k8sevent:{event.involved_name}:{index}:{event.reason}",
            redactor=redactor,
        ):
            yield signal.model_copy(update={"pod": pod}) if pod else signal


def restarts_of(pod: Pod, cite: str) -> Iterator[Restarts]:
    """Each container that terminated with a failure at least once, with its restart count."""
    statuses = (*pod.status.init_container_statuses, *pod.status.container_statuses)
    for status in statuses:
        latest = status.last_state.terminated or status.state.terminated
        if latest is None or latest.exit_code == 0:
            continue
        yield Restarts(
            pod=pod.name,
            container=status.name,
            restart_count=status.restart_count,
            last_terminated=status.last_state.terminated is not None,
            waiting_or_terminated=status.state.running is None,
            last_finished_at=(status.state.terminated or latest).finished_at,
            pod_started_at=pod.status.start_time,
            key=f"k8s:{pod.name}:{status.name}:",
            source=cite,
            final=status.state.terminated is not None,
        )
