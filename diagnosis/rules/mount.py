"""DATASOURCE_MOUNT_FAILED: a PVC, secret or config map could not be mounted."""

from __future__ import annotations

from diagnosis.evidence import Evidence
from diagnosis.lexicon import SignalKind
from diagnosis.report import Category, EvidenceLine
from diagnosis.rules.base import Finding, cite_all, latest

__all__ = ["datasource_mount_failed"]


def datasource_mount_failed(ev: Evidence) -> Finding | None:
    """`FailedMount` / `FailedAttachVolume`, a missing claim/secret/config map, unbound PVC."""
    signals = ev.of(SignalKind.MOUNT_FAILED)
    if not signals:
        return None
    volume = next((s.detail for s in reversed(signals) if s.detail), None)
    lines = cite_all(signals)
    storage = ev.spec.spec.storage if ev.spec and ev.spec.spec else None
    for pvc in storage.pvc if storage else ():
        lines.append(
            EvidenceLine(
                text=f"Submitted PVC mount: {pvc.name or '?'} (claim {pvc.claim_name or '?'}) "
                f"at {pvc.path or '?'}",
                source="get_workload_spec",
            )
        )
    what = f"volume {volume}" if volume else "a data source volume"
    return Finding(
        category=Category.DATASOURCE_MOUNT_FAILED,
        at=latest(signals),
        headline=f"The pod could not mount {what}.",
        evidence=tuple(lines),
        details={"volume": volume} if volume else {},
    )
