"""CRASH_APP_ERROR: the main container exited non-zero with no system kill behind it.

One documented exception to the skill's recovery owner (the user): when the failing log line
is a GPU hardware fault (a node-class Xid, an uncorrectable ECC error, a GPU fallen off the
bus), SRE owns it. The category stays: the skill's trigger holds (a non-zero exit, no kill
from outside), NODE_FAILURE needs a node signal (NotReady, drain, eviction) and a log line,
the workload's own words, never decides a category. Headline, owner and advice all say so,
naming the fault as the log does (an Xid by number, an ECC error as ECC) and the node the
failed pod ran on (Run:ai's `nodeName`).
"""

from __future__ import annotations

import re

from diagnosis.evidence import Evidence
from diagnosis.exitcodes import describe_exit_code, is_app_error
from diagnosis.lexicon import SignalKind
from diagnosis.report import Category, EvidenceLine
from diagnosis.rules.advice import kubectl_logs, log_lines, logs_read, restarted
from diagnosis.rules.base import CategoryRow, Details, Finding, cite_all, latest
from diagnosis.xid import xid_in

__all__ = ["ROW", "crash_app_error", "gpu_fault", "gpu_hardware_owner"]

_PODS = "get_workload_pods"


def crash_app_error(ev: Evidence) -> Finding | None:
    """A non-zero exit code that is not 137/143/130/129 and not an init container's."""
    init_keys = {s.key.rsplit(":", 1)[0] for s in ev.of(SignalKind.INIT_FAILED)}
    exits = [
        s
        for s in ev.of(SignalKind.EXIT_CODE)
        if s.exit_code is not None
        and is_app_error(s.exit_code)
        and s.key.rsplit(":", 1)[0] not in init_keys
    ]
    if not exits:
        return None
    newest = exits[-1]
    code = newest.exit_code or 0
    who = f"Container {newest.detail}" if newest.detail else "The main container"
    logs = ev.of(SignalKind.LOG_ERROR)
    starts = [s for s in ev.of(SignalKind.START_ERROR) if s.detail]
    headline = f"{who} exited with code {describe_exit_code(code)}."
    log_kind = None
    if starts:  # it never ran: the runtime's reason is the failing line
        log_kind = "start-error"
        start = starts[-1]
        logs = [*starts, *logs]
        headline = f"{who} could not start (exit code {code}): {start.detail}."
    elif any(s.detail == "gpu-oom" for s in logs):
        log_kind = "gpu-oom"
        headline = (
            f"{who} exited with code {code} after a GPU memory error (CUDA out of memory): "
            "the GPU allocator failed inside the process, not the kernel's OOM killer."
        )
    elif logs:
        log_kind = logs[-1].detail or "error"
    placed: tuple[EvidenceLine, ...] = ()
    node = None
    if log_kind == "gpu-hardware":
        pod, node = _placement(ev, logs[-1].pod or newest.pod)
        on = f" on node {node}" if node else ""
        headline = (
            f"{who} exited with code {code}{on} after its log reported "
            f"{gpu_fault(logs[-1].text)}, a GPU hardware fault: the node's GPU, not the code, "
            "is the likely cause."
        )
        if pod and node:
            placed = (EvidenceLine(text=f"Pod {pod} ran on node {node}", source=_PODS),)
    facts = ev.of(SignalKind.COLLECTIVE, SignalKind.GPU_XID)  # what the failing line states
    return Finding(
        category=Category.CRASH_APP_ERROR,
        at=latest(exits),
        headline=headline,
        evidence=(*cite_all(logs), *cite_all(facts), *placed, *cite_all(exits)),
        context=tuple(cite_all(ev.of(SignalKind.CRASHLOOP))),
        details=Details(container=newest.detail, exit_code=code, log_kind=log_kind, node=node),
    )


def _placement(ev: Evidence, pod: str | None) -> tuple[str | None, str | None]:
    """The failed pod and the node Run:ai placed it on (`get_workload_pods`' nodeName).

    The pod is the failing line's (else the exit's); without one, the only pod's node.
    """
    pods = [p for p in ev.pods or () if p.node_name]
    if pod is None and len(pods) == 1:
        pod = pods[0].name
    found = next((p for p in pods if p.name == pod), None)
    return (found.name, found.node_name) if found else (pod, None)


#: A GPU hardware fault as its log line says it (`diagnosis.logs`' `gpu-hardware`), first match.
_FAULTS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"double[- ]bit ECC", re.IGNORECASE), "a double-bit ECC error"),
    (re.compile(r"ECC", re.IGNORECASE), "an uncorrectable ECC error"),
    (re.compile(r"fallen off the bus", re.IGNORECASE), "the GPU falling off the bus"),
    (re.compile(r"NVLink", re.IGNORECASE), "an uncorrectable NVLink error"),
    (re.compile(r"row remapping", re.IGNORECASE), "a row-remapping failure"),
    (re.compile(r"GPU is lost|requires reset", re.IGNORECASE), "a lost GPU (it needs a reset)"),
)


def gpu_fault(line: str) -> str:
    """What the failing line reports, in its own terms: `Xid 79`, `an uncorrectable ECC error`."""
    if (xid := xid_in(line)) is not None:
        return f"Xid {xid.code} ({xid.meaning})"
    return next((words for found, words in _FAULTS if found.search(line)), "a GPU fault")


#: Advice by what the cited failing log line shows (`diagnosis.logs` line kinds).
_BY_LOG_KIND = {
    "start-error": "The container never started: the runtime could not run its command "
    "(the cause is quoted above). Fix the submitted command or the image's entrypoint: the "
    "program must exist in the image, on its PATH, and be executable. Rerunning unchanged will "
    "fail the same way.",
    "gpu-oom": "The GPU ran out of memory: reduce the per-GPU batch size, enable gradient "
    "checkpointing or mixed precision, or request a GPU with more memory. Raising "
    "the CPU-memory limit will not help.",
    "gpu-app-fault": "The GPU reported a fault in the program's own GPU work (the Xid quoted "
    "above: an illegal address or an exception in a kernel). Rerun with CUDA_LAUNCH_BLOCKING=1 "
    "or under compute-sanitizer to find the kernel; only if the same code fails again on this "
    "one GPU, ask SRE to run DCGM diagnostics on it.",
    "nccl-timeout": "A collective operation hit the NCCL watchdog timeout: one rank stalled or "
    "died first. Find that rank's own error and check the inter-node network (rerun with "
    "NCCL_DEBUG=INFO); raise the timeout only for a known slow step.",
    "rendezvous": "Not every rank joined the rendezvous in time: check that every pod of the "
    "job was scheduled and started (a pending or crashed worker), and that the master's address "
    "and port are reachable from the others; raise the timeout only for a known slow start.",
}


def _gpu_hardware(ev: Evidence, finding: Finding) -> str:
    node = finding.details.node
    which = f"node {node}" if node else f"the node it ran on ({_PODS} named none)"
    said = next((gpu_fault(s.text) for s in reversed(ev.of(SignalKind.LOG_ERROR))), "a GPU fault")
    return (
        f"The log shows {said}, a GPU hardware fault: ask SRE to check the GPUs of {which} "
        "(nvidia-smi, DCGM diagnostics) and drain it if faulty, then resubmit; the code is not "
        "at fault."
    )


def _advise(ev: Evidence, finding: Finding) -> list[str]:
    if finding.details.log_kind == "gpu-hardware":
        return [_gpu_hardware(ev, finding)]
    if (advice := _BY_LOG_KIND.get(finding.details.log_kind or "")) is not None:
        return [advice]
    code = finding.details.exit_code
    exited = f" It exited with code {describe_exit_code(code)}." if code is not None else ""
    rerun = "Rerunning unchanged will fail the same way."
    if log_lines(ev):
        return [f"Fix the code or configuration the failing log line above points to. {rerun}"]
    if logs_read(ev):
        return [
            "Its log shows no error line, so start from the exit code: fix the code or "
            f"configuration it indicates.{exited} {rerun}"
        ]
    container = finding.details.container
    # `--previous` reads the run before the current container's: say so, not "its log".
    log = "its previous run's log" if restarted(ev, container) else "its log"
    return [
        f"Find the failing line in {log}, {kubectl_logs(ev, container)}, and fix the code or "
        f"configuration it shows.{exited} {rerun}"
    ]


def gpu_hardware_owner(node: str | None) -> str:
    """The documented exception to the row's owner (see the module's docstring), short."""
    gpus = f"node {node}'s GPUs" if node else "the node's GPUs"
    return f"Infrastructure/SRE: {gpus} (an exception: a GPU hardware fault, not the code)"


def _owner(finding: Finding) -> str | None:
    """The exception to the user's ownership: a GPU hardware fault is SRE's."""
    if finding.details.log_kind == "gpu-hardware":
        return gpu_hardware_owner(finding.details.node)
    return None


ROW = CategoryRow(
    category=Category.CRASH_APP_ERROR,
    rule=crash_app_error,
    owner="User: fix code or configuration",
    advise=_advise,
    owner_for=_owner,  # its one exception: a GPU hardware fault is SRE's
    container_evidence=True,
)
