"""IMAGE_PULL_FAILED: the image could not be pulled, with the registry's sub-cause."""

from __future__ import annotations

from diagnosis.evidence import Evidence, Signal
from diagnosis.lexicon import SignalKind, extract_detail
from diagnosis.redact import quote
from diagnosis.report import Category, EvidenceLine
from diagnosis.rules.advice import EVENTS, describe_pod, ran
from diagnosis.rules.base import CategoryRow, Details, Finding, PullSubcause, cite_all, latest

__all__ = ["ROW", "SUBCAUSE_TEXT", "differs", "image_pull_failed"]

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


def _submitted(ev: Evidence) -> tuple[str, str] | None:
    """The submitted image (redacted) and where it was read: the spec, else the status."""
    raw = ev.spec.spec.image if ev.spec and ev.spec.spec else None
    if raw:
        return quote(raw), "get_workload_spec"
    if ev.workload.images:
        return quote(ev.workload.images[0]), "get_workload_status"
    return None


def _canonical(image: str) -> str:
    """An image reference as the runtime resolves it: Docker Hub's prefixes off, `:latest` on."""
    for prefix in ("docker.io/library/", "docker.io/", "index.docker.io/library/"):
        if image.startswith(prefix):
            image = image.removeprefix(prefix)
            break
    last = image.rsplit("/", 1)[-1]
    return image if ":" in last or "@" in last else f"{image}:latest"


def differs(named: str | None, submitted: str | None) -> bool:
    """Whether the image an error names is another than the submitted one (both known)."""
    return bool(named and submitted) and _canonical(named or "") != _canonical(submitted or "")


def _images(
    named: tuple[str, Signal] | None, submitted: tuple[str, str] | None, *, registry: bool
) -> list[EvidenceLine]:
    """The image lines: the one the error names only when it is not the submitted one.

    `registry`: the error is the registry's (an invalid reference never reached one).
    """
    error = "the registry error" if registry else "the error"
    if submitted is None:
        return (
            [EvidenceLine(text=f"Image {error} names: {named[0]}", source=named[1].source)]
            if named
            else []
        )
    image, source = submitted
    if named is None:
        return [
            EvidenceLine(text=f"Submitted image: {image} ({error} names no image)", source=source)
        ]
    if not differs(named[0], image):
        return [
            EvidenceLine(
                text=f"Submitted image: {image}, the one {error} names",
                source=source,
                sources=(source, named[1].source),
            )
        ]
    return [
        EvidenceLine(
            text=f"Image {error} names: {named[0]}, not the submitted image (an init "
            "container's or a sidecar's, or the spec changed since)",
            source=named[1].source,
        ),
        EvidenceLine(text=f"Submitted image: {image}", source=source),
    ]


def image_pull_failed(ev: Evidence) -> Finding | None:
    """`ImagePullBackOff` / `ErrImagePull` / `InvalidImageName`, decoded into a sub-cause.

    The image is the one the registry error names (a pod may pull several: an init container's,
    a sidecar's), else the submitted one; `Details.image_named` says which. When the error
    names another image than the submitted one, the headline and the evidence say so.
    """
    signals = ev.of(SignalKind.IMAGE_PULL)
    if not signals:
        return None
    decoded = next((s.detail for s in reversed(signals) if s.detail), None)
    subcause = next((p for p in PullSubcause if p.value == decoded), PullSubcause.UNSPECIFIED)
    submitted = _submitted(ev)
    named = _named(signals)
    registry = subcause is not PullSubcause.INVALID_NAME
    headline = f"The image could not be pulled: {SUBCAUSE_TEXT[subcause]}."
    if named and submitted and differs(named[0], submitted[0]):
        headline += f" It is {named[0]}, not the submitted image {submitted[0]}."
    return Finding(
        category=Category.IMAGE_PULL_FAILED,
        at=latest(signals),
        headline=headline,
        evidence=tuple(cite_all(signals)),
        context=tuple(_images(named, submitted, registry=registry)),
        details=Details(
            subcause=subcause,
            image=named[0] if named else (submitted[0] if submitted else None),
            image_named=named is not None,
        ),
    )


def _not_found(ev: Evidence, finding: Finding) -> str:
    """The advice for a manifest the registry does not have, naming the image to check."""
    image = finding.details.image
    submitted = _submitted(ev)
    fix = "Fix the image name or tag: the registry has no such manifest."
    if image is None:
        return f"{fix} Check that the tag exists (the registry's tag list)."
    if not finding.details.image_named:
        return (
            f"{fix} Check that the tag exists (`docker manifest inspect {image}`, the submitted "
            "image; the registry error names none) and that the workload names it exactly."
        )
    if submitted is not None and differs(image, submitted[0]):
        return (
            f"{fix} Check that the tag exists (`docker manifest inspect {image}`, the image the "
            f"registry error names) and which of the pod's containers pulls it: the submitted "
            f"image is {submitted[0]}, so it is an init container's or a sidecar's, or the spec "
            "changed since."
        )
    return (
        f"{fix} Check that the tag exists (`docker manifest inspect {image}`, the image the "
        "registry error names) and that the workload names it exactly."
    )


def _advise(ev: Evidence, finding: Finding) -> list[str]:
    subcause = finding.details.subcause or PullSubcause.UNSPECIFIED
    if subcause is PullSubcause.NOT_FOUND:
        return [_not_found(ev, finding)]
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
