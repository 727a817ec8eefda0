"""IMAGE_PULL_FAILED: the image could not be pulled, with the registry's sub-cause."""

from __future__ import annotations

from diagnosis.evidence import Evidence
from diagnosis.lexicon import SignalKind
from diagnosis.redact import Redactor, shorten
from diagnosis.report import Category, EvidenceLine
from diagnosis.rules.base import Finding, cite_all, latest

__all__ = ["SUBCAUSE_TEXT", "image_pull_failed"]

#: Sub-cause → what it means, phrased for the headline.
SUBCAUSE_TEXT: dict[str, str] = {
    "not-found": "the image tag or manifest does not exist in the registry",
    "repo-or-access": "the repository does not exist, or access to it was denied",
    "auth": "the registry rejected the pull credentials",
    "network": "the registry could not be reached (DNS, network or TLS failure)",
    "rate-limit": "the registry rate-limited the pull",
    "invalid-name": "the image reference is not a valid name",
}


def image_pull_failed(ev: Evidence) -> Finding | None:
    """`ImagePullBackOff` / `ErrImagePull` / `InvalidImageName`, decoded into a sub-cause."""
    signals = ev.of(SignalKind.IMAGE_PULL)
    if not signals:
        return None
    subcause = next((s.detail for s in reversed(signals) if s.detail), None)
    lines = cite_all(signals)
    image = ev.spec.spec.image if ev.spec and ev.spec.spec else None
    image = image or (ev.workload.images[0] if ev.workload.images else None)
    if image:
        source = "get_workload_spec" if ev.spec and ev.spec.spec else "get_workload_status"
        lines.append(
            EvidenceLine(text=f"Submitted image: {shorten(Redactor().clean(image))}", source=source)
        )
    cause = SUBCAUSE_TEXT.get(subcause or "", "the registry error text does not say why")
    return Finding(
        category=Category.IMAGE_PULL_FAILED,
        at=latest(signals),
        headline=f"The image could not be pulled: {cause}.",
        evidence=tuple(lines),
        details={"subcause": subcause or "unspecified"},
    )
