"""DATASOURCE_MOUNT_FAILED: a PVC, secret or config map could not be mounted."""

from __future__ import annotations

import re

from diagnosis.evidence import Evidence, Signal
from diagnosis.lexicon import SignalKind
from diagnosis.report import Category, EvidenceLine
from diagnosis.rules.advice import namespace
from diagnosis.rules.base import CategoryRow, Details, Finding, cite_all, latest

__all__ = ["ROW", "datasource_mount_failed"]


_MISSING = re.compile(
    r"\b(secret|configmap|persistentvolumeclaim) \"([^\"]+)\" not found", re.IGNORECASE
)
_NAMES = {"secret": "secret", "configmap": "config map", "persistentvolumeclaim": "PVC"}


def _missing(signals: list[Signal]) -> str | None:
    """'secret hf-token', 'PVC nlp-data': what an error says does not exist, if it says so."""
    for signal in reversed(signals):
        match = _MISSING.search(signal.text)
        if match:
            return f"{_NAMES[match.group(1).lower()]} {match.group(2)}"
    return None


def _headline(volume: str | None, missing: str | None) -> str:
    if volume and missing and missing.split()[-1] != volume:
        return f"The pod could not mount volume {volume}: {missing} not found."
    if missing:
        return f"The pod could not start: {missing} not found."
    return f"The pod could not mount {'volume ' + volume if volume else 'a data source volume'}."


def datasource_mount_failed(ev: Evidence) -> Finding | None:
    """`FailedMount` / `FailedAttachVolume`, a missing claim, secret or config map."""
    signals = ev.of(SignalKind.MOUNT_FAILED)
    if not signals:
        return None
    volume = next((s.detail for s in reversed(signals) if s.detail), None)
    storage = ev.spec.spec.storage if ev.spec and ev.spec.spec else None
    context = [
        EvidenceLine(
            text=f"Submitted PVC mount: {pvc.name or '?'} (claim {pvc.claim_name or '?'}) "
            f"at {pvc.path or '?'}",
            source="get_workload_spec",
        )
        for pvc in (storage.pvc if storage else ())
    ]
    missing = _missing(signals)
    return Finding(
        category=Category.DATASOURCE_MOUNT_FAILED,
        at=latest(signals),
        headline=_headline(volume, missing),
        evidence=tuple(cite_all(signals)),
        context=tuple(context),
        details=Details(volume=volume, missing_object=missing),
    )


def _not_a_claim(finding: Finding) -> str | None:
    """The missing secret or config map, when that (not storage) is what failed."""
    missing = finding.details.missing_object
    return missing if missing and not missing.startswith("PVC ") else None


def _advise(ev: Evidence, finding: Finding) -> list[str]:
    missing = _not_a_claim(finding)
    if missing:
        return [
            f"Create {missing} in namespace {namespace(ev)}, or correct the name the workload "
            "refers to; the pod cannot start until it exists."
        ]
    volume = f"volume {finding.details.volume}" if finding.details.volume else "the volume"
    return [
        f"Ask the storage administrator to check {volume}: that the PVC exists and is Bound, "
        f"and that the secret or config map exists in namespace {namespace(ev)}."
    ]


def _owner(finding: Finding) -> str | None:
    """A missing secret or config map is the user's to create, not a storage problem."""
    if _not_a_claim(finding):
        return "User: create the secret or config map, or fix its name"
    return None


ROW = CategoryRow(
    category=Category.DATASOURCE_MOUNT_FAILED,
    rule=datasource_mount_failed,
    owner="Storage administrator",
    advise=_advise,
    owner_for=_owner,
)
