"""A volume that cannot be bound (P6): the claims cited, their storage class a gap, a command.

An Immediate claim binds before any node is chosen, so no node pool is blamed; a claim that
binds where the pod is placed is about the pool. The claims come from the pods' volumes
(Kubernetes), cited; the storage class is on the claim, which the bot does not read: it is
named under Not measured, and the advice gives the command that shows it, runnable as written.
"""

from __future__ import annotations

from typing import Any

import pytest

from diagnosis.kube.models import Pod as KubePod
from diagnosis.pending.compose import compose_pending
from diagnosis.pending.table import decide
from diagnosis.pending.verdict import PendingReason
from tests.diagnosis.pending import builders as b

R = PendingReason


def _kube_pod(*claims: str) -> KubePod:
    """Pod bert-ft-0-0 in runai-nlp mounting one volume per claim."""
    volumes = [
        {"name": f"data{n}", "persistentVolumeClaim": {"claimName": claim}}
        for n, claim in enumerate(claims)
    ]
    return KubePod.model_validate(
        {
            "metadata": {"name": "bert-ft-0-0", "namespace": "runai-nlp"},
            "spec": {"containers": [{"name": "trainer"}], "volumes": volumes},
        }
    )


#: (the scheduler's text, the claims the pods mount: None without Kubernetes, the headline's
#: words, words it never has, the command the advice gives, the gap named)
CASES: list[Any] = [
    pytest.param(
        b.PVC_IMMEDIATE, ("coco-rwx",),
        "Its claim coco-rwx is unbound: with Immediate binding", "node pool",
        "`kubectl describe pvc coco-rwx -n runai-nlp`", "the storage class of claim coco-rwx",
        id="immediate-one-claim",
    ),
    pytest.param(
        b.PVC_IMMEDIATE, ("a-rwx", "b-rwx"),
        "Its claims a-rwx, b-rwx are unbound", "node pool",
        "`kubectl describe pvc a-rwx b-rwx -n runai-nlp`", "the storage class of claims a-rwx, b-rwx",
        id="immediate-two-claims",
    ),
    pytest.param(
        b.PVC, None,
        "A volume it needs cannot be bound in node pool default", "Immediate",
        "`kubectl get pvc -n runai-nlp`", "which claims are unbound, and their storage class",
        id="wait-for-first-consumer-no-kubernetes",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("said", "claims", "words", "never", "command", "gap"), CASES)
def test_an_unbound_claim_is_cited_with_a_command_and_its_storage_class_a_gap(  # noqa: PLR0917
    said: str, claims: tuple[str, ...] | None, words: str, never: str, command: str, gap: str
):
    ev = b.pending_evidence(events=[b.fit(said)], free=16)
    if claims is not None:
        ev = ev.model_copy(update={"kube_pods": (_kube_pod(*claims),), "tier2": True})
    best, others = decide(ev)
    assert best.reason is R.PVC_UNBOUND, best.headline
    assert words in best.headline, best.headline
    assert never not in best.headline, best.headline
    report = compose_pending(ev, best, others)
    assert any(command in a for a in report.recommendations), report.recommendations
    assert any(m.startswith(gap) for m in report.missing), report.missing
    cited = [(e.text, e.source) for e in report.evidence if "mounts claim" in e.text]
    expected = [
        (f"Pod bert-ft-0-0 mounts claim {claim} (volume data{n})",
         "kubectl describe pod, namespace runai-nlp")
        for n, claim in enumerate(claims or ())
    ]  # fmt: skip
    assert cited == expected


@pytest.mark.parametrize(("requested", "shown"), [(1, "1 GPU"), (0.5, "0.5 GPU"), (4, "4 GPUs")])
def test_a_gpu_count_is_said_in_the_right_number(requested: float, shown: str):
    wl = b.waiting(
        workloadRequestedResources={"gpu": {"request": requested}},
        podsRequestedResources={"gpu": {"request": requested}},
    )
    ev = b.pending_evidence(wl, events=[b.fit(b.PVC)], free=16)
    report = compose_pending(ev, *decide(ev))
    assert f"Requested: {shown} (source" in " ".join(f"{e.text} (source" for e in report.evidence)
