"""The Pending row for a volume that cannot be bound (P6), with the claims it names.

Pure like the other rows: it reads `PendingEvidence` and one node pool's figures, and
returns a `Verdict` or None; the precedence table (`table.py`) decides when it is tried.
"""

from __future__ import annotations

import re

from diagnosis.kube.collect import namespace_for
from diagnosis.kube.signals import source
from diagnosis.pending.evidence import PendingEvidence
from diagnosis.pending.figures import PoolFigures
from diagnosis.pending.texts import Saying
from diagnosis.pending.verdict import PendingReason, Verdict, in_pool, verdict
from diagnosis.report import EvidenceLine

__all__ = ["pvc_unbound"]

R = PendingReason

_IMMEDIATE = re.compile(r"unbound immediate PersistentVolumeClaims", re.IGNORECASE)
#: At most this many pods' claim mounts are cited.
_MOUNTS = 3


def pvc_unbound(ev: PendingEvidence, fig: PoolFigures) -> Verdict | None:
    """P6: a volume it needs cannot be bound to any node.

    An Immediate claim ("unbound immediate PersistentVolumeClaims") binds before any node is
    chosen, so no node pool is at issue; the others bind where the pod is placed. The claims
    are cited from the pods' volumes (Kubernetes); their storage class is on the claim, which
    the bot does not read: named as a gap, with the command that shows it in the advice.
    """
    said = ev.saying(Saying.PVC, pool=fig.pool)
    if not said:
        return None
    mounts = {
        (v.persistent_volume_claim.claim_name, v.name, p.metadata.name, p.metadata.namespace)
        for p in ev.kube_pods or ()
        for v in p.spec.volumes
        if v.persistent_volume_claim is not None
    }
    claims = tuple(sorted({claim for claim, *_ in mounts}))
    lines = tuple(
        EvidenceLine(
            text=f"Pod {pod} mounts claim {claim} (volume {volume})",
            source=source("kubectl describe pod", namespace or "?"),
        )
        for claim, volume, pod, namespace in sorted(mounts)[:_MOUNTS]
    )
    noun = "claim" if len(claims) == 1 else "claims"
    which = f" ({noun} {', '.join(claims)})" if claims else ""
    if _IMMEDIATE.search(said[0].text):
        who = f"Its {noun} {', '.join(claims)}" if claims else "A volume claim it needs"
        headline = (
            f"{who} {'are' if len(claims) > 1 else 'is'} unbound: with Immediate binding a "
            "claim is bound when it is created, before any node is chosen, and no volume is "
            "bound yet."
        )
    else:
        headline = f"A volume it needs{which} cannot be bound{in_pool(fig)}."
    unread = (
        f"the storage class of {noun} {', '.join(claims)} (the bot does not read claims)"
        if claims
        else "which claims are unbound, and their storage class (the bot does not read claims)"
    )
    namespace = namespace_for(ev.workload)[0] or "<namespace>"
    command = (
        f"kubectl describe pvc {' '.join(claims)} -n {namespace}"
        if claims
        else f"kubectl get pvc -n {namespace}"
    )
    its, it = ("its", "it") if len(claims) == 1 else ("their", "them")
    check = (
        f"Check the {noun} with the storage administrator: {its} status, storage class and "
        f"events (`{command}`) say why no volume binds {it} (a provisioner down, no matching "
        "volume, or the volumes' node affinity)."
    )
    found = verdict(R.PVC_UNBOUND, fig, headline, said[0], lines=lines, missing=(unread,))
    return found.model_copy(update={"actions": (check,)})
