"""IMAGE_PULL_FAILED: the image could not be pulled, with the registry's sub-cause."""

from __future__ import annotations

from diagnosis.evidence import Evidence, Signal
from diagnosis.lexicon import SignalKind, extract_detail
from diagnosis.redact import quote
from diagnosis.report import Category, EvidenceLine
from diagnosis.rules.advice import EVENTS, describe_pod, ran
from diagnosis.rules.base import CategoryRow, Details, Finding, PullSubcause, cite_all, latest

__all__ = ["ROW", "SUBCAUSE_TEXT", "image_pull_failed"]

#: Sub-cause → what it means, phrased for the headline.
SUBCAUSE_TEXT: dict[PullSubcause, str] = {
    PullSubcause.NOT_FOUND: "the image tag or manifest does not exist in the registry",
    PullSubcause.REPO_OR_ACCESS: "the repository does not exist, or access to it was denied",
    PullSubcause.AUTH: "the registry rejected the pull credentials",
    PullSubcause.NETWORK: "the registry could not be reached (DNS, network or TLS failure)",
    PullSubcause.RATE_LIMIT: "the registry rate-limited the pull",
    PullSubcause.INVALID_NAME: "the image reference is not a valid name",
    PullSubcause.UNSPECIFIED: "the registry error text does not say why",
}

#: Sub-cause → what to do; matched to the registry error, never "credentials" by default.
_ADVICE: dict[PullSubcause, str] = {
    PullSubcause.REPO_OR_ACCESS: "Check the repository path; if it is private, make sure the "
    "project has an image pull secret with access to it.",
    PullSubcause.AUTH: "Correct the registry credentials (image pull secret / Run:ai "
    "credential) for this registry; the registry rejected them explicitly.",
    PullSubcause.NETWORK: "Check registry DNS and connectivity from the cluster nodes (name "
    "resolution, proxy, firewall, TLS certificates); credentials are not the problem here.",
    PullSubcause.RATE_LIMIT: "Wait for the registry rate limit to reset, or pull through a "
    "mirror/cache or with authenticated pulls.",
    PullSubcause.INVALID_NAME: "Fix the image reference: it is not a valid image name.",
}

#: Who fixes it follows the sub-cause (the skill's column is the unspecified case).
_OWNER: dict[PullSubcause, str] = {
    PullSubcause.NOT_FOUND: "User: fix the image name or tag",
    PullSubcause.INVALID_NAME: "User: fix the image reference",
    PullSubcause.REPO_OR_ACCESS: "User: repository path; administrator: registry access",
    PullSubcause.AUTH: "Administrator: registry credentials",
    PullSubcause.NETWORK: "Infrastructure/SRE: registry DNS and network from the nodes",
    PullSubcause.RATE_LIMIT: "Administrator: registry rate limit (mirror or authenticated pulls)",
}


def _named(signals: list[Signal]) -> tuple[str, Signal] | None:
    """The image the newest registry error names (`Failed to pull image "x"`), and that error."""
    for signal in reversed(signals):
        if (image := extract_detail("image", signal.text)) is not None:
            return quote(image), signal
    return None


def image_pull_failed(ev: Evidence) -> Finding | None:
    """`ImagePullBackOff` / `ErrImagePull` / `InvalidImageName`, decoded into a sub-cause.

    The image is the one the registry error names (a pod may pull several: an init container's,
    a sidecar's), else the submitted one; `Details.image_named` says which.
    """
    signals = ev.of(SignalKind.IMAGE_PULL)
    if not signals:
        return None
    decoded = next((s.detail for s in reversed(signals) if s.detail), None)
    subcause = next((p for p in PullSubcause if p.value == decoded), PullSubcause.UNSPECIFIED)
    raw = ev.spec.spec.image if ev.spec and ev.spec.spec else None
    raw = raw or (ev.workload.images[0] if ev.workload.images else None)
    submitted = quote(raw) if raw else None
    named = _named(signals)
    context: list[EvidenceLine] = []
    if named is not None:
        context.append(
            EvidenceLine(text=f"Image the registry error names: {named[0]}", source=named[1].source)
        )
    if submitted:
        source = "get_workload_spec" if ev.spec and ev.spec.spec else "get_workload_status"
        none = " (the registry error names no image)" if named is None else ""
        context.append(EvidenceLine(text=f"Submitted image: {submitted}{none}", source=source))
    return Finding(
        category=Category.IMAGE_PULL_FAILED,
        at=latest(signals),
        headline=f"The image could not be pulled: {SUBCAUSE_TEXT[subcause]}.",
        evidence=tuple(cite_all(signals)),
        context=tuple(context),
        details=Details(
            subcause=subcause,
            image=named[0] if named else submitted,
            image_named=named is not None,
        ),
    )


def _advise(ev: Evidence, finding: Finding) -> list[str]:
    subcause = finding.details.subcause or PullSubcause.UNSPECIFIED
    if subcause is PullSubcause.NOT_FOUND:
        image = finding.details.image
        which = (
            "the image the registry error names"
            if finding.details.image_named
            else "the submitted image; the registry error names none"
        )
        check = (
            f"`docker manifest inspect {image}`, {which}" if image else "the registry's tag list"
        )
        return [
            f"Fix the image name or tag: the registry has no such manifest. Check that the tag "
            f"exists ({check}) and that the workload names it exactly."
        ]
    if subcause in _ADVICE:
        return [_ADVICE[subcause]]
    if ran(ev, EVENTS):
        return [
            "Neither the pod's events nor its description say why the pull failed: check the "
            "image name and tag first, then that the nodes reach the registry, and only then "
            "the pull credentials; ImagePullBackOff alone does not point to credentials.",
        ]
    return [
        f"Read the registry's error in the pod's events ({describe_pod(ev)}); "
        "ImagePullBackOff alone does not say whether the tag, network or credentials are at "
        "fault, so do not assume credentials."
    ]


def _owner(finding: Finding) -> str | None:
    return _OWNER.get(finding.details.subcause or PullSubcause.UNSPECIFIED)


ROW = CategoryRow(
    category=Category.IMAGE_PULL_FAILED,
    rule=image_pull_failed,
    owner="User: image/tag; administrator: registry credentials",
    advise=_advise,
    owner_for=_owner,
)
