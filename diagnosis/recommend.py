"""Next actions per category, matched to the specific evidence (sub-cause, policy, exit code)."""

from __future__ import annotations

from diagnosis.evidence import Evidence
from diagnosis.memory import memory_evidence
from diagnosis.quantity import format_bytes
from diagnosis.report import Category, Recurrence
from diagnosis.rules.base import Finding

__all__ = ["recommendations"]

_PULL: dict[str, str] = {
    "not-found": "Fix the image name or tag: the registry has no such manifest. "
    "Check the tag exists (e.g. `docker manifest inspect <image>`).",
    "repo-or-access": "Check the repository path; if it is private, make sure the project "
    "has an image pull secret with access to it.",
    "auth": "Correct the registry credentials (image pull secret / Run:ai credential) "
    "for this registry; the registry rejected them explicitly.",
    "network": "Check registry DNS and connectivity from the cluster nodes (name resolution, "
    "proxy, firewall, TLS certificates); credentials are not the problem here.",
    "rate-limit": "Wait for the registry rate limit to reset, or pull through a mirror/cache "
    "or with authenticated pulls.",
    "invalid-name": "Fix the image reference: it is not a valid image name.",
}

_POLICY: dict[str, str] = {
    "idle-timeout": "The idle-GPU timeout stopped it. Keep the GPU busy or use a training "
    "workload for batch work; ask an administrator only if the timeout was unintended.",
    "max-duration": "It hit the maximum run time. Checkpoint and resume in shorter runs; ask "
    "an administrator to review the project's time limit only if it is wrong.",
    "manual-stop": "Someone stopped it on purpose. Check with the person or automation named "
    "in the event before resubmitting.",
}

#: Crash advice by what the failing log line shows (`logs.failing_line` kinds).
_CRASH: dict[str, str] = {
    "gpu-oom": "The GPU ran out of memory: reduce the per-GPU batch size, enable gradient "
    "checkpointing or mixed precision, or request a GPU with more memory. Raising "
    "the CPU-memory limit will not help.",
    "gpu-hardware": "The log shows a GPU hardware fault (Xid or ECC error): ask SRE to check the "
    "node's GPUs (nvidia-smi, DCGM diagnostics) and drain it if faulty, then resubmit; the "
    "code is not at fault.",
    "nccl-timeout": "A collective operation hit the NCCL watchdog timeout: one rank stalled or "
    "died first. Find that rank's own error and check the inter-node network (rerun with "
    "NCCL_DEBUG=INFO); raise the timeout only for a known slow step.",
}


def _oom(ev: Evidence) -> list[str]:
    memory, _, _ = memory_evidence(ev)
    limit = f"the {format_bytes(memory.limit_bytes)} limit" if memory.limit_bytes else "the limit"
    return [
        f"Profile memory and raise {limit} with sufficient headroom before rerunning.",
        "Investigate batch size and dataloader growth (workers, prefetch, caching); "
        "consider gradient checkpointing.",
    ]


def _by_category(ev: Evidence, finding: Finding) -> list[str]:
    details = finding.details
    match finding.category:
        case Category.OOM_KILLED:
            return _oom(ev)
        case Category.IMAGE_PULL_FAILED:
            return [
                _PULL.get(
                    str(details.get("subcause")),
                    "Read the registry error in the pod events (`kubectl describe pod`); "
                    "ImagePullBackOff alone does not say whether the tag, network or "
                    "credentials are at fault, so do not assume credentials.",
                )
            ]
        case Category.INIT_FAILED if details.get("finding"):
            return [
                "Fix the init container's script or its inputs: its failing log line is "
                "quoted above. Rerunning unchanged will fail the same way."
            ]
        case Category.INIT_FAILED:
            return [
                "Fix the init container's script or its inputs; read its logs with "
                "`kubectl logs <pod> -c <init-container> -n <namespace>`."
            ]
        case Category.DATASOURCE_MOUNT_FAILED:
            return [
                "Ask the storage administrator to check the volume: that the PVC exists and "
                "is Bound, and the secret/config map exists in the project namespace."
            ]
        case Category.NODE_FAILURE:
            restart = (ev.spec.spec.restart_policy if ev.spec and ev.spec.spec else None) or ""
            if restart.lower() == "onfailure":
                return [
                    "Retry on a healthy node: the restart policy is OnFailure, so the "
                    "workload can be retried; ask SRE to check the node."
                ]
            return [
                "Resubmit the workload (restart policy is not OnFailure); ask SRE to "
                "check the node's health before it takes more work."
            ]
        case Category.SCHEDULING_POLICY_TERMINATED:
            return [_POLICY.get(str(details.get("policy")), "Identify the policy that stopped it.")]
        case Category.CRASH_APP_ERROR if str(details.get("finding")) in _CRASH:
            return [_CRASH[str(details.get("finding"))]]
        case Category.CRASH_APP_ERROR:
            return [
                "Fix the code or configuration indicated by the exit code and the failing log "
                "line (`kubectl logs --previous`); rerunning unchanged will fail the same way.",
            ]
        case Category.UNKNOWN:
            return [
                "Collect container-level evidence: `kubectl describe pod` (exit code, "
                "termination reason), `kubectl logs --previous` and the pod's events."
            ]


def recommendations(ev: Evidence, finding: Finding, recurrence: Recurrence) -> list[str]:
    """Category-specific actions, plus a permanent-fix note when the failure recurs."""
    actions = _by_category(ev, finding)
    if recurrence.recurring and recurrence.count is not None:
        actions.append(
            f"This failed the same way {recurrence.count} times in the last "
            f"{recurrence.lookback}: make a permanent fix rather than rerunning unchanged."
        )
    return actions
