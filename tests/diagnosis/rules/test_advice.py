"""Advice fitted to what was collected, and who fixes it following the sub-cause.

Each row is a class of cases: the same failure with Tier 2 configured or not, its log read or
not, a failing line found or not. Advice never asks the user to run a `kubectl` command the
bot already ran, fills in the real pod, container and namespace when it does suggest one,
and never points to "the failing log line" when none is shown.
"""

from __future__ import annotations

import pytest

from diagnosis.compose import compose
from diagnosis.evidence import Gap
from diagnosis.report import Category, EvidenceLine
from diagnosis.rules import classify, row
from diagnosis.rules.crash import gpu_hardware_owner
from diagnosis.runai.models import Node
from tests.diagnosis.rules.cases import (
    PULL_AUTH,
    PULL_DENIED,
    PULL_DNS,
    PULL_NOT_FOUND,
    PULL_RATE,
)
from tests.diagnosis.rules.tier2 import LOGS, container, pod, with_tier2
from tests.factories import event, evidence, spec, workload
from tests.factories import pod as runai_pod

TRACEBACK = "Traceback (most recent call last):\n  File 'train.py'\nValueError: bad shape\n"
CRASH = workload(phaseMessage="container trainer terminated with exit code 1")
INIT = [event("Failed", 'init container "fetch-data" failed: exit code 3')]
PODS = [runai_pod("Error", containers=[{"name": "trainer"}])]
NO_ERROR_LINE = EvidenceLine(
    text="The previous logs of container trainer in pod bert-ft-0-0 show no error line",
    source=LOGS,
)
LOOPING = event("BackOff", "Back-off restarting failed container trainer in pod bert-ft-0-0")
EVICTED = (
    "The node was low on resource: memory. Threshold quantity: 100Mi, available: 52Mi. "
    "Container trainer was using 30Gi, which exceeds its request of 16Gi. "
)

NOT_READY_NODE = Node.model_validate(
    {"name": "dgx-a100-07", "status": "NotReady", "nodePool": "default", "taints": []}
)

CASES = [
    # evidence, advice must contain (all), advice must not contain (any)
    pytest.param(
        evidence(CRASH, pods=PODS, events=[LOOPING]),
        [
            "Find the failing line in its previous run's log, "
            "`kubectl logs bert-ft-0-0 -c trainer -n runai-nlp --previous`"
        ],
        ["failing log line above", "<pod>", "<namespace>"],
        id="crash-no-tier2-names-the-real-pod",
    ),
    # `--previous` only for a container that restarted: kubectl finds no previous one otherwise
    pytest.param(
        evidence(CRASH, pods=PODS, spec_=spec(restartPolicy="Never")),
        ["Find the failing line in its log, `kubectl logs bert-ft-0-0 -c trainer -n runai-nlp`"],
        ["--previous", "previous run"],
        id="crash-restart-policy-never-current-log",
    ),
    pytest.param(
        evidence(CRASH, pods=PODS, spec_=spec(restartPolicy="OnFailure")),
        [
            "Find the failing line in its log, `kubectl logs bert-ft-0-0 -c trainer -n runai-nlp` "
            "(add `--previous` if it restarted)"
        ],
        ["-n runai-nlp --previous`", "previous run"],
        id="crash-restart-not-known-current-log-first",
    ),
    pytest.param(
        with_tier2(
            evidence(CRASH, pods=PODS, spec_=spec(restartPolicy="OnFailure")),
            pod([container("trainer", exit_code=1)]),
            gaps=(Gap(source=LOGS, what="log of container trainer unavailable (HTTP 403)"),),
        ),
        ["`kubectl logs bert-ft-0-0 -c trainer -n runai-nlp`"],
        ["--previous"],
        id="crash-tier2-no-restart-current-log",
    ),
    pytest.param(
        with_tier2(
            evidence(CRASH, pods=PODS, spec_=spec(restartPolicy="OnFailure")),
            pod([container("trainer", exit_code=1, restarts=3, previous_exit=1)]),
            gaps=(Gap(source=LOGS, what="log of container trainer unavailable (HTTP 403)"),),
        ),
        ["`kubectl logs bert-ft-0-0 -c trainer -n runai-nlp --previous`"],
        ["if it restarted"],
        id="crash-tier2-restarted-previous-log",
    ),
    pytest.param(
        evidence(
            pods=PODS,
            events=[event("Error", "container trainer exit code 137")],
            spec_=spec(restartPolicy="Never"),
        ),
        ["`kubectl logs bert-ft-0-0 -c trainer -n runai-nlp` and"],
        ["--previous"],
        id="unknown-restart-policy-never-current-log",
    ),
    pytest.param(
        evidence(
            pods=PODS,
            events=[
                event("Failed", 'init container "fetch-data" failed: exit code 3'),
                event(
                    "BackOff", "Back-off restarting failed container fetch-data in pod bert-ft-0-0"
                ),
            ],
        ),
        ["`kubectl logs bert-ft-0-0 -c fetch-data -n runai-nlp --previous`"],
        [],
        id="init-crash-looping-previous-log",
    ),
    pytest.param(
        with_tier2(
            evidence(CRASH, pods=PODS),
            pod([container("trainer", exit_code=1, restarts=2)]),
            log=("trainer", TRACEBACK),
        ),
        ["the failing log line above"],
        ["kubectl"],
        id="crash-log-line-shown",
    ),
    pytest.param(
        with_tier2(
            evidence(CRASH, pods=PODS),
            pod([container("trainer", exit_code=1)]),
            lines=(NO_ERROR_LINE,),
        ),
        ["no error line", "exit code"],
        ["kubectl", "failing log line"],
        id="crash-log-read-without-an-error-line",
    ),
    pytest.param(
        evidence(pods=PODS, events=INIT, spec_=spec(restartPolicy="Never")),
        ["`kubectl logs bert-ft-0-0 -c fetch-data -n runai-nlp`."],
        ["failing log line above", "<pod>", "--previous"],
        id="init-no-tier2-names-the-init-container",
    ),
    pytest.param(
        with_tier2(
            evidence(pods=PODS),
            pod(
                [container("trainer")],
                init=[container("fetch-data", exit_code=3, reason="Error")],
            ),
            log=("fetch-data", "downloading shards\nERROR: 403 Forbidden from s3://bucket\n"),
        ),
        ["init container fetch-data", "failing log line is quoted above"],
        ["kubectl"],
        id="init-log-line-shown",
    ),
    pytest.param(
        evidence(
            events=[event("Failed", PULL_NOT_FOUND)], spec_=spec(image="nvcr.io/acme/train:v9")
        ),
        ["`docker manifest inspect nvcr.io/acme/train:v9`"],
        ["<image>", "credentials"],
        id="pull-not-found-names-the-image",
    ),
    # the image the registry error names, not the submitted one (a pod pulls several)
    pytest.param(
        evidence(
            events=[event("Failed", PULL_NOT_FOUND)],
            spec_=spec(image="nvcr.io/nvidia/pytorch:24.05-py3"),
        ),
        [
            "`docker manifest inspect nvcr.io/acme/train:v9`, the image the registry error names",
            "which of the pod's containers pulls it: the submitted image is "
            "nvcr.io/nvidia/pytorch:24.05-py3, so it is an init container's or a sidecar's",
        ],
        ["names it exactly"],
        id="pull-not-found-names-the-image-the-error-names",
    ),
    pytest.param(
        evidence(
            events=[event("Failed", PULL_NOT_FOUND)], spec_=spec(image="nvcr.io/acme/train:v9")
        ),
        ["the image the registry error names) and that the workload names it exactly"],
        ["pulls it", "submitted image is"],
        id="pull-not-found-names-the-submitted-image",
    ),
    pytest.param(
        evidence(
            events=[event("ErrImagePull", "rpc error: code = NotFound desc = manifest unknown")],
            spec_=spec(image="nvcr.io/nvidia/pytorch:24.05-py3"),
        ),
        [
            "`docker manifest inspect nvcr.io/nvidia/pytorch:24.05-py3`, the submitted image; "
            "the registry error names none"
        ],
        [],
        id="pull-not-found-error-names-no-image-submitted-one",
    ),
    pytest.param(
        evidence(pods=PODS, events=[event("BackOff", 'Back-off pulling image "x:1"')]),
        ["`kubectl describe pod bert-ft-0-0 -n runai-nlp`", "do not assume credentials"],
        ["<pod>"],
        id="pull-unspecified-no-tier2",
    ),
    pytest.param(
        with_tier2(
            evidence(pods=PODS, events=[event("BackOff", 'Back-off pulling image "x:1"')]),
            pod([container("trainer")], phase="Pending"),
        ),
        ["image name and tag first"],
        ["kubectl"],
        id="pull-unspecified-after-tier2",
    ),
    pytest.param(
        evidence(pods=PODS, events=[event("Error", "container trainer exit code 137"), LOOPING]),
        [
            "`kubectl describe pod bert-ft-0-0 -n runai-nlp`",
            "`kubectl logs bert-ft-0-0 -c trainer -n runai-nlp --previous`",
            "`kubectl get events -n runai-nlp --field-selector involvedObject.name=bert-ft-0-0`",
        ],
        ["<pod>"],
        id="unknown-no-tier2-all-three-commands",
    ),
    pytest.param(
        with_tier2(
            evidence(pods=PODS),
            pod([container("trainer", exit_code=137, reason="Error")]),
            lines=(NO_ERROR_LINE,),
        ),
        ["SIGKILL"],
        ["kubectl"],
        id="unknown-after-tier2",
    ),
    pytest.param(
        with_tier2(
            evidence(pods=PODS, events=[event("Error", "container trainer exit code 137")]),
            gaps=(
                Gap(
                    source="kubectl describe pod, namespace runai-nlp",
                    what="pod bert-ft-0-0 unavailable (HTTP 403)",
                ),
            ),
        ),
        ["`kubectl describe pod bert-ft-0-0 -n runai-nlp`"],
        [],
        id="unknown-tier2-read-failed",
    ),
    pytest.param(
        evidence(pods=PODS, events=[event("Evicted", EVICTED)]),
        [
            "raise the CPU-memory request of container trainer",
            "request = limit",
            "Resubmit the workload with the higher memory request, or retry it if its restart "
            "policy is OnFailure",
        ],
        ["SRE"],
        id="eviction-over-request",
    ),
    # the request fix comes first, the skill's retry or resubmission follows, with it; the
    # node is the pod's, not SRE's, unless it shows a problem of its own
    pytest.param(
        evidence(
            pods=PODS, events=[event("Evicted", EVICTED)], spec_=spec(restartPolicy="OnFailure")
        ),
        [
            "raise the CPU-memory request of container trainer",
            "Retry it with the higher memory request: the restart policy is OnFailure.",
        ],
        ["Resubmit", "healthy node", "SRE"],
        id="eviction-over-request-on-failure-retries",
    ),
    pytest.param(
        evidence(pods=PODS, events=[event("Evicted", EVICTED)], spec_=spec(restartPolicy="Never")),
        [
            "raise the CPU-memory request of container trainer",
            "Resubmit the workload with the higher memory request (restart policy is not "
            "OnFailure).",
        ],
        ["Retry on a healthy node", "SRE"],
        id="eviction-over-request-never-resubmits",
    ),
    pytest.param(
        evidence(
            pods=PODS, events=[event("Evicted", EVICTED)], spec_=spec(restartPolicy="Never")
        ).model_copy(update={"nodes": (NOT_READY_NODE,)}),
        [
            "Resubmit the workload with the higher memory request (restart policy is not "
            "OnFailure); ask SRE to check the node's health",
        ],
        [],
        id="eviction-over-request-node-not-ready-now",
    ),
    pytest.param(
        evidence(
            events=[
                event(
                    "FailedMount",
                    'MountVolume.SetUp failed for volume "creds" : secret "hf-token" not found',
                )
            ]
        ),
        ["Create secret hf-token in namespace runai-nlp"],
        ["storage administrator"],
        id="mount-missing-secret",
    ),
]


@pytest.mark.parametrize(("ev", "wanted", "unwanted"), CASES)
def test_advice_fits_what_was_collected(ev, wanted, unwanted):
    report = compose(ev, classify(ev))
    advice = " ".join(report.recommendations)
    for text in wanted:
        assert text.lower() in advice.lower(), (text, advice)
    for text in unwanted:
        assert text.lower() not in advice.lower(), (text, advice)


def test_init_report_cites_the_init_containers_failing_line():
    """The line the bot read is quoted first, not dropped."""
    ev = with_tier2(
        evidence(pods=PODS),
        pod([container("trainer")], init=[container("fetch-data", exit_code=3, reason="Error")]),
        log=("fetch-data", "downloading shards\nERROR: 403 Forbidden from s3://bucket\n"),
    )
    report = compose(ev, classify(ev))
    assert report.category is Category.INIT_FAILED
    assert "ERROR: 403 Forbidden from s3://bucket" in report.evidence[0].text
    assert report.evidence[0].source == LOGS


OWNERS = [
    # evidence, recovery owner
    pytest.param(evidence(events=[event("Failed", PULL_DNS)]), "Infrastructure/SRE", id="dns"),
    pytest.param(evidence(events=[event("Failed", PULL_RATE)]), "rate limit", id="rate-limit"),
    pytest.param(evidence(events=[event("Failed", PULL_NOT_FOUND)]), "image name", id="not-found"),
    pytest.param(evidence(events=[event("Failed", PULL_AUTH)]), "credentials", id="auth"),
    pytest.param(evidence(events=[event("Failed", PULL_DENIED)]), "registry access", id="denied"),
    pytest.param(
        evidence(events=[event("BackOff", 'Back-off pulling image "x:1"')]),
        "User: image/tag; administrator: registry credentials",
        id="unspecified-keeps-the-skills-column",
    ),
    pytest.param(
        evidence(events=[event("Evicted", EVICTED)]),
        "User: memory request",
        id="eviction-over-request",
    ),
    pytest.param(
        evidence(
            events=[event("Evicted", "The node was low on resource: memory. Threshold 100Mi.")]
        ),
        "Infrastructure/SRE",
        id="plain-pressure-eviction",
    ),
]


@pytest.mark.parametrize(("ev", "owner"), OWNERS)
def test_recovery_owner_follows_the_subcause(ev, owner):
    """An image-pull DNS, rate-limit or not-found failure is not 'registry credentials'."""
    report = compose(ev, classify(ev))
    assert report.recovery_owner is not None
    assert owner in report.recovery_owner
    if report.subcause in {"network", "rate-limit", "not-found"}:
        assert "credentials" not in report.recovery_owner
    assert report.to_json_dict("24h")["recovery_owner"] == report.recovery_owner


NODE_EVICTED = event("Evicted", "The node was low on resource: memory. Threshold quantity: 100Mi")

OVER_REQUEST = [event("Evicted", EVICTED)]
NODE_OWNERS = [
    # evidence, whether SRE has something to do (the owner line and the advice say it alike)
    pytest.param(evidence(pods=PODS, events=OVER_REQUEST), False, id="over-request-policy-unread"),
    pytest.param(
        evidence(pods=PODS, events=OVER_REQUEST, spec_=spec(restartPolicy="OnFailure")),
        False,
        id="over-request-on-failure",
    ),
    pytest.param(
        evidence(pods=PODS, events=OVER_REQUEST, spec_=spec(restartPolicy="Never")),
        False,
        id="over-request-never",
    ),
    pytest.param(
        evidence(pods=PODS, events=OVER_REQUEST, spec_=spec(restartPolicy="Never")).model_copy(
            update={"nodes": (NOT_READY_NODE,)}
        ),
        True,
        id="over-request-node-not-ready-now",
    ),
    pytest.param(evidence(pods=PODS, events=[NODE_EVICTED]), True, id="plain-pressure-eviction"),
]


@pytest.mark.parametrize(("ev", "sre"), NODE_OWNERS)
def test_a_node_failures_owner_names_sre_exactly_when_its_advice_does(ev, sre):
    """An over-request eviction on a healthy node is the user's: no SRE in owner or advice."""
    report = compose(ev, classify(ev))
    assert report.category is Category.NODE_FAILURE
    advice = " ".join(report.recommendations)
    assert ("SRE" in advice) is sre, advice
    assert ("SRE" in (report.recovery_owner or "")) is sre, report.recovery_owner


@pytest.mark.parametrize(
    ("submitted", "advice"),
    [
        (
            spec(restartPolicy="OnFailure"),
            "Retry on a healthy node: the restart policy is OnFailure",
        ),
        (spec(restartPolicy="Never"), "Resubmit the workload (restart policy is not OnFailure)"),
        (spec(), "retry it if its restart policy is OnFailure (the policy could not be read)"),
        (None, "retry it if its restart policy is OnFailure (the policy could not be read)"),
    ],
)
def test_a_node_failures_advice_states_only_the_restart_policy_read(submitted, advice):
    ev = evidence(events=[NODE_EVICTED], pods=[runai_pod()], spec_=submitted)
    report = compose(ev, classify(ev))
    assert report.category is Category.NODE_FAILURE
    assert any(advice in r for r in report.recommendations)


NAMED_IMAGES = [
    # event (reason, message), the image the finding names, whether the error named it
    pytest.param(("Failed", PULL_NOT_FOUND), "nvcr.io/acme/train:v9", True, id="failed-to-pull"),
    pytest.param(
        ("BackOff", 'Back-off pulling image "nvcr.io/acme/init:2"'),
        "nvcr.io/acme/init:2",
        True,
        id="back-off",
    ),
    pytest.param(
        (
            "InvalidImageName",
            'Failed to apply default image tag "nvcr.io/Acme/train:v9": couldn\'t parse image '
            'reference "nvcr.io/Acme/train:v9": invalid reference format',
        ),
        "nvcr.io/Acme/train:v9",
        True,
        id="invalid-name",
    ),
    pytest.param(("ErrImagePull", "manifest unknown"), "submitted:1", False, id="names-none"),
]


@pytest.mark.parametrize(("said", "image", "named"), NAMED_IMAGES)
def test_the_image_is_the_one_the_registry_error_names(said, image, named):
    ev = evidence(events=[event(*said)], spec_=spec(image="submitted:1"))
    report = compose(ev, classify(ev))
    assert report.category is Category.IMAGE_PULL_FAILED
    assert report.details["image"] == image
    assert report.details.get("image_named", False) is named
    lines = [e.text for e in report.evidence]
    assert (
        "Submitted image: submitted:1 (the registry error names no image)" in lines
    ) is not named
    assert (f"It is {image}, not the submitted image submitted:1." in report.headline) is named


#: (the submitted image, the image the error names, the image lines): the one the error names
#: is shown apart only when it is another image, said to be so; an invalid reference is no
#: registry's error.
IMAGE_LINES = [
    pytest.param(
        "nvcr.io/acme/train:v9", ("Failed", PULL_NOT_FOUND),
        ["Submitted image: nvcr.io/acme/train:v9, the one the registry error names"],
        id="the-same-image-one-line",
    ),
    pytest.param(
        "busybox", ("BackOff", 'Back-off pulling image "docker.io/library/busybox:latest"'),
        ["Submitted image: busybox, the one the registry error names"],
        id="the-same-image-as-the-runtime-resolves-it",
    ),
    pytest.param(
        "nvcr.io/nvidia/pytorch:24.05-py3", ("Failed", PULL_NOT_FOUND),
        ["Image the registry error names: nvcr.io/acme/train:v9, not the submitted image (an "
         "init container's or a sidecar's, or the spec changed since)",
         "Submitted image: nvcr.io/nvidia/pytorch:24.05-py3"],
        id="another-image-said-to-differ",
    ),
    pytest.param(
        "nvcr.io/Acme/train:v9",
        ("InvalidImageName", 'Failed to apply default image tag "nvcr.io/Acme/train:v9": '
         'couldn\'t parse image reference "nvcr.io/Acme/train:v9": invalid reference format'),
        ["Submitted image: nvcr.io/Acme/train:v9, the one the error names"],
        id="invalid-name-is-no-registry-error",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("submitted", "said", "shown"), IMAGE_LINES)
def test_the_image_lines_say_whether_the_failing_image_is_the_submitted_one(submitted, said, shown):
    ev = evidence(events=[event(*said)], spec_=spec(image=submitted))
    report = compose(ev, classify(ev))
    lines = [e.text for e in report.evidence if "image" in e.text.split(":", 1)[0].lower()]
    assert lines == shown


ECC_LOG = (
    "[rank2]:     loss.backward()\n"
    "[rank2]: RuntimeError: CUDA error: uncorrectable ECC error encountered\n"
)


def test_a_gpu_hardware_crash_names_its_owner_as_the_documented_exception():
    """Category, headline, owner and advice agree: the crash is the GPU's, which is SRE's.

    The category stays CRASH_APP_ERROR (a non-zero exit, no node signal, and a log line never
    decides a category); the owner departs from the row's usual one and says so.
    """
    ev = with_tier2(
        evidence(CRASH, pods=PODS),
        pod([container("trainer", exit_code=1, reason="Error")]),
        log=("trainer", ECC_LOG),
    )
    finding = classify(ev)
    report = compose(ev, finding)
    assert report.category is Category.CRASH_APP_ERROR
    assert report.details["log_kind"] == "gpu-hardware"
    owner = gpu_hardware_owner("dgx-a100-07")
    assert report.recovery_owner == owner != row(Category.CRASH_APP_ERROR).owner
    assert report.recovery_owner.startswith("Infrastructure/SRE: node dgx-a100-07's GPUs")
    assert "an exception" in report.recovery_owner
    assert len(report.recovery_owner) <= 100
    assert "GPU hardware fault" in report.headline
    assert "general application error" not in report.headline
    assert "the code is not at fault" in " ".join(report.recommendations)


def test_a_gpu_hardware_crash_names_the_node_and_the_fault_as_the_log_says_it():
    """The node Run:ai placed the pod on is named in headline, evidence, advice and JSON."""
    ev = with_tier2(
        evidence(CRASH, pods=PODS),
        pod([container("trainer", exit_code=1, reason="Error")]),
        log=("trainer", ECC_LOG),
    )
    report = compose(ev, classify(ev))
    assert "on node dgx-a100-07 after its log reported an uncorrectable ECC error" in (
        report.headline
    )
    assert "Xid" not in report.headline
    assert ("Pod bert-ft-0-0 ran on node dgx-a100-07", "get_workload_pods") in [
        (e.text, e.source) for e in report.evidence
    ]
    [advice] = report.recommendations
    assert advice.startswith("The log shows an uncorrectable ECC error")
    assert "check the GPUs of node dgx-a100-07" in advice
    assert report.details["node"] == "dgx-a100-07"
