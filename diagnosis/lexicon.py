"""The vocabulary of failure: which reasons and message patterns mean which signal.

Kept as data in one place so that a new kubelet or Run:ai wording is one line here, and the
rules never match strings themselves. Patterns are matched case-insensitively against
reasons and messages the control plane reports; they are anchored on system wording
(kubelet, containerd, scheduler), never on anything a workload writes about itself.
"""

from __future__ import annotations

import re
from enum import StrEnum

__all__ = [
    "EXIT_CODE_PATTERNS",
    "PULL_SUBCAUSES",
    "SIGNAL_PATTERNS",
    "SIGNAL_REASONS",
    "SignalKind",
    "extract_detail",
]


class SignalKind(StrEnum):
    """A raw, named observation extracted from upstream text or fields."""

    OOM_KILLED = "oom_killed"
    IMAGE_PULL = "image_pull"
    INIT_FAILED = "init_failed"
    MOUNT_FAILED = "mount_failed"
    CRASHLOOP = "crashloop"
    EXIT_CODE = "exit_code"
    POD_ERROR = "pod_error"
    NODE_NOT_READY = "node_not_ready"
    NODE_EVICTION = "node_eviction"
    NODE_CORDONED = "node_cordoned"
    KILLED = "killed"
    IDLE_TIMEOUT = "idle_timeout"
    MAX_DURATION = "max_duration"
    MANUAL_STOP = "manual_stop"
    PREEMPTED = "preempted"
    UNSCHEDULABLE = "unschedulable"
    RESTARTED = "restarted"
    LOG_ERROR = "log_error"
    START_ERROR = "start_error"
    COLLECTIVE = "collective"
    GPU_XID = "gpu_xid"


def _rx(*patterns: str) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p, re.IGNORECASE) for p in patterns)


#: Event/condition/phase reasons that are a signal by themselves (compared case-insensitively).
SIGNAL_REASONS: dict[str, SignalKind] = {
    "oomkilled": SignalKind.OOM_KILLED,
    "oomkilling": SignalKind.OOM_KILLED,
    "imagepullbackoff": SignalKind.IMAGE_PULL,
    "errimagepull": SignalKind.IMAGE_PULL,
    "invalidimagename": SignalKind.IMAGE_PULL,
    "errimageneverpull": SignalKind.IMAGE_PULL,
    "init:error": SignalKind.INIT_FAILED,
    "init:crashloopbackoff": SignalKind.INIT_FAILED,
    "failedmount": SignalKind.MOUNT_FAILED,
    "failedattachvolume": SignalKind.MOUNT_FAILED,
    "crashloopbackoff": SignalKind.CRASHLOOP,
    # the runtime could not start the container's process (the cause is in the message)
    "starterror": SignalKind.START_ERROR,
    "containercannotrun": SignalKind.START_ERROR,
    "runcontainererror": SignalKind.START_ERROR,
    "nodenotready": SignalKind.NODE_NOT_READY,
    "nodelost": SignalKind.NODE_NOT_READY,
    "taintmanagereviction": SignalKind.NODE_NOT_READY,
    # pod condition DisruptionTarget reasons (why the pod is about to be deleted)
    "deletionbytaintmanager": SignalKind.NODE_NOT_READY,
    "evictionbyevictionapi": SignalKind.NODE_EVICTION,
    "terminationbykubelet": SignalKind.NODE_EVICTION,
    "preemptionbyscheduler": SignalKind.PREEMPTED,
    "nodenotschedulable": SignalKind.NODE_CORDONED,
    "killing": SignalKind.KILLED,
    "deadlineexceeded": SignalKind.MAX_DURATION,
    "preempted": SignalKind.PREEMPTED,
    "unschedulable": SignalKind.UNSCHEDULABLE,
    "failedscheduling": SignalKind.UNSCHEDULABLE,
    "nonpreemptibleoverquota": SignalKind.UNSCHEDULABLE,
    "overlimit": SignalKind.UNSCHEDULABLE,
    "idletimeout": SignalKind.IDLE_TIMEOUT,
    "maxdurationexceeded": SignalKind.MAX_DURATION,
    "timelimitexceeded": SignalKind.MAX_DURATION,
    "stoppedbyuser": SignalKind.MANUAL_STOP,
    "scheduled": SignalKind.RESTARTED,
    "started": SignalKind.RESTARTED,
}

#: Message patterns per signal. Order matters only for readability; all are tried.
SIGNAL_PATTERNS: dict[SignalKind, tuple[re.Pattern[str], ...]] = {
    SignalKind.PREEMPTED: _rx(
        # not inside a name such as `vit-preempted-0-0`
        r"(?<!not )(?<!n't )(?<!never )(?<![\w/-])preempted(?![\w/-])",
        r"\b(?:after|due to|because of|by) preemption\b",
        # the scheduler's stale-gang eviction names no preemptor and says no "preempted"
        r"doesn't meet the minimum required number of pods \(\d+\), evicting",
    ),
    SignalKind.OOM_KILLED: _rx(
        r"\bOOMKilled\b",
        r"\bOOM[- ]?kill(ed|ing)?\b",
        r"memory cgroup out of memory",
        r"\bkilled process \d+ .*out of memory",
    ),
    SignalKind.IMAGE_PULL: _rx(
        r"\bImagePullBackOff\b",
        r"\bErrImagePull\b",
        r"\bInvalidImageName\b",
        r"failed to pull (and unpack )?image",
        r"back-off pulling image",
    ),
    SignalKind.INIT_FAILED: _rx(
        r"\bInit:(Error|CrashLoopBackOff|ExitCode)",
        r"\binit container\b.*\b(fail|exit|error|terminat|crash)",
        r"\binitcontainer\b.*\b(fail|exit|error|terminat|crash)",
    ),
    SignalKind.MOUNT_FAILED: _rx(
        r"\bFailedMount\b",
        r"\bFailedAttachVolume\b",
        r"unable to attach or mount volumes",
        r"MountVolume\.\w+ failed",
        r"persistentvolumeclaim \"[^\"]+\" not found",
        # not "pod has unbound immediate PersistentVolumeClaims": a scheduler fit text (the
        # pod was never placed), so a scheduling Pending (`PVC_UNBOUND`), not a mount failure
        r"(secret|configmap) \"[^\"]+\" not found",
    ),
    SignalKind.CRASHLOOP: _rx(r"\bCrashLoopBackOff\b", r"back-off restarting failed container"),
    # the driver's GPU fault report, as a node's kernel log or a GPU health agent quotes it
    SignalKind.GPU_XID: _rx(r"\bNVRM: Xid\b", r"\bXid \(PCI:", r"\bXid[ =:]+\d{1,3}\b"),
    SignalKind.START_ERROR: _rx(
        r"\bOCI runtime (?:create|exec|start) failed\b",
        r"\bfailed to create (?:containerd )?(?:shim )?task\b",
        r"\bunable to start container process\b",
        r"\bstarting container process caused\b",
        r"\bexecutable file not found in \$PATH\b",
    ),
    SignalKind.NODE_NOT_READY: _rx(
        r"\bNodeNotReady\b",
        r"\bnode\b[^.]*\bis not ready\b",
        r"\bnode\b[^.]*\bnot ?ready\b",
        r"node\.kubernetes\.io/(unreachable|not-ready)",
        r"kubelet stopped posting node status",
        r"\bTaint manager: deleting due to NoExecute taint\b",
        r"\bnode (was )?lost\b",
    ),
    SignalKind.NODE_EVICTION: _rx(
        r"the node was low on resource",
        r"\bnode had condition\b",
        r"\b(memory|disk|pid)pressure\b",
        # not inside a name such as `vit-drain-0-0`: hyphens and slashes bound the word too
        r"(?<![\w/-])drain(ed|ing)?(?![\w/-]).*\bnode\b|\bnode\b.*(?<![\w/-])drain(ed|ing)?(?![\w/-])",
        r"\bEviction API: evicting\b",
    ),
    SignalKind.NODE_CORDONED: _rx(
        r"\bstatus is now: NodeNotSchedulable\b",
        r"node\.kubernetes\.io/unschedulable",
    ),
    SignalKind.IDLE_TIMEOUT: _rx(
        r"\bidle\b.*\b(time ?out|time limit|duration|exceeded|for more than)\b",
        r"\b(time ?out|exceeded)\b.*\bidle\b",
    ),
    SignalKind.MAX_DURATION: _rx(
        r"\b(max(imum)?|allowed) (run ?time|duration|runtime)\b",
        r"\b(run ?time|time) limit\b",
        r"\bexceeded (its|the) (allowed |maximum )?(run ?time|duration)\b",
        r"\bwas active (on the node )?longer than (the )?specified deadline\b",
    ),
    SignalKind.MANUAL_STOP: _rx(
        r"\b(stopped|suspended|terminated|deleted) manually\b",
        r"\bmanually (stopped|suspended|terminated|deleted)\b",
        r"\b(stopped|suspended|stop requested|deleted) by (user )?[\"']?[\w.@+-]+@[\w.-]+",
        r"\b(stopped|suspended|stop requested) by (the )?user\b",
    ),
    SignalKind.UNSCHEDULABLE: _rx(
        r"\b0/\d+ nodes are available\b",
        r"\binsufficient (nvidia\.com/gpu|cpu|memory)\b",
        r"\bnot enough resources\b",
        r"\bunschedulable\b",
        r"\bover ?quota\b",
    ),
}

#: `exit code 137`, `exitCode: 1`, `exited with code 2`, `exit status 127`, `Init:ExitCode:1`.
EXIT_CODE_PATTERNS: tuple[re.Pattern[str], ...] = _rx(
    r"\bexit(?:ed)?(?: with)?[ _-]?(?:code|status)\b[\"'\s:=]*(-?\d{1,3})\b",
    r"\bexitCode\b[\"'\s:=]*(-?\d{1,3})\b",
    r"\bInit:ExitCode:(-?\d{1,3})\b",
)

#: Image-pull sub-causes, first match wins; decoded from the registry's error text.
PULL_SUBCAUSES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(pattern, re.IGNORECASE))
    for name, pattern in (
        ("rate-limit", r"toomanyrequests|429 too many requests|rate limit"),
        (
            "auth",
            # a bare 401 is not enough: image digests and tags are full of digits
            r"unauthorized|authentication required|no basic auth credentials"
            r"|\b(?:status|code)\W{1,3}401\b|403 forbidden|invalid username/password",
        ),
        (
            "repo-or-access",
            r"repository does not exist|pull access denied|requested access .*denied",
        ),
        (
            "not-found",
            r"manifest unknown|manifest for \S+ not found|not found: manifest|: not found\b"
            r"|failed to resolve reference .*not found",
        ),
        (
            "network",
            r"no such host|i/o timeout|connection refused|dial tcp|tls handshake|x509"
            r"|certificate|network is unreachable|context deadline exceeded|server misbehaving",
        ),
        (
            "invalid-name",
            r"invalidimagename|couldn't parse image reference|invalid reference format",
        ),
    )
)

_DETAIL_PATTERNS: dict[str, tuple[re.Pattern[str], ...]] = {
    "volume": _rx(
        r"unmounted volumes=\[([^\]]+)\]",
        r"volume \"([^\"]+)\"",
        r"persistentvolumeclaim \"([^\"]+)\"",
        r"(?:secret|configmap) \"([^\"]+)\" not found",
    ),
    "node": _rx(r"\bnode[ /:]+\"?([a-z0-9]+(?:[.-][a-z0-9]+)+)\"?"),
    "container": _rx(r"\bcontainer \"?([a-z0-9][a-z0-9-]*)\"?", r"\binit container \"?([\w-]+)"),
    # the kubelet's pull errors name the image: `Failed to pull image "x"`, `Back-off pulling
    # image "x"`, InvalidImageName's `Failed to apply default image tag "x"`
    "image": _rx(r"\bimage (?:tag )?\"([^\"\s]+)\"", r"pulling image \"?([^\"\s]+)"),
    # what the runtime says after its own prefixes: `exec: "x": executable file not found in $PATH`
    "start": _rx(
        r"(?:unable to start container process|starting container process caused"
        r"|error during container init):\s*(.+?)(?::\s*unknown)?\s*$",
    ),
}


def extract_detail(kind: str, text: str) -> str | None:
    """Pull a named detail (`volume`, `node`, `container`, `image`, `start`) out of a message."""
    for pattern in _DETAIL_PATTERNS[kind]:
        match = pattern.search(text)
        if match:
            return match.group(1)
    return None
