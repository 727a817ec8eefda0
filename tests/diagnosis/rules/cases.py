"""One row per category: the evidence, the category the rules decide, and its key details."""

from __future__ import annotations

from diagnosis.report import Category
from tests.factories import event, evidence, history_event, phase_update, pod, spec, workload

PULL_NOT_FOUND = (
    'Failed to pull image "nvcr.io/acme/train:v9": rpc error: code = NotFound desc = failed to '
    'pull and unpack image "nvcr.io/acme/train:v9": failed to resolve reference '
    '"nvcr.io/acme/train:v9": nvcr.io/acme/train:v9: not found'
)
PULL_DNS = (
    'Failed to pull image "registry.acme.internal/ml/train:1.2": rpc error: code = Unknown desc = '
    "failed to resolve reference: dial tcp: lookup registry.acme.internal on 10.96.0.10:53: "
    "no such host"
)
PULL_AUTH = (
    'Failed to pull image "nvcr.io/acme/private:1": rpc error: code = Unknown desc = failed to '
    "authorize: failed to fetch oauth token: unexpected status: 401 Unauthorized"
)
PULL_DENIED = (
    'Failed to pull image "acme/secret-model:2": rpc error: code = Unknown desc = Error response '
    "from daemon: pull access denied for acme/secret-model, repository does not exist or may "
    "require 'docker login'"
)
PULL_RATE = (
    'Failed to pull image "python:3.11": toomanyrequests: You have reached your pull rate limit.'
)

CASES = [
    # id, evidence, expected category, expected details subset
    (
        "oom-phase-message",
        evidence(workload(phaseMessage="Container trainer was OOMKilled (exit code 137)")),
        Category.OOM_KILLED,
        {"container": "trainer"},
    ),
    ("oom-pod-phase", evidence(pods=[pod("OOMKilled")]), Category.OOM_KILLED, {}),
    (
        "oom-event-reason",
        evidence(events=[event("OOMKilled", "Container was OOM killed")]),
        Category.OOM_KILLED,
        {},
    ),
    (
        "cuda-oom-is-not-kernel-oom",
        evidence(workload(phaseMessage="RuntimeError: CUDA out of memory. exit code 1")),
        Category.CRASH_APP_ERROR,
        {"exit_code": 1},
    ),
    (
        "pull-not-found",
        evidence(events=[event("Failed", PULL_NOT_FOUND)]),
        Category.IMAGE_PULL_FAILED,
        {"subcause": "not-found"},
    ),
    (
        "pull-dns",
        evidence(events=[event("Failed", PULL_DNS)]),
        Category.IMAGE_PULL_FAILED,
        {"subcause": "network"},
    ),
    (
        "pull-auth",
        evidence(events=[event("Failed", PULL_AUTH)]),
        Category.IMAGE_PULL_FAILED,
        {"subcause": "auth"},
    ),
    (
        "pull-denied",
        evidence(events=[event("Failed", PULL_DENIED)]),
        Category.IMAGE_PULL_FAILED,
        {"subcause": "repo-or-access"},
    ),
    (
        "pull-rate-limit",
        evidence(events=[event("Failed", PULL_RATE)]),
        Category.IMAGE_PULL_FAILED,
        {"subcause": "rate-limit"},
    ),
    (
        "pull-backoff-says-nothing",
        evidence(events=[event("BackOff", 'Back-off pulling image "nvcr.io/acme/train:v9"')]),
        Category.IMAGE_PULL_FAILED,
        {"subcause": "unspecified"},
    ),
    (
        "init-pod-phase-and-exit",
        evidence(
            pods=[pod("Init:Error")],
            events=[event("Failed", 'init container "fetch-data" failed: exit code 3')],
        ),
        Category.INIT_FAILED,
        {"exit_code": 3},
    ),
    (
        "mount-failedmount",
        evidence(
            events=[
                event(
                    "FailedMount",
                    'MountVolume.SetUp failed for volume "data" : persistentvolumeclaim "nlp-data" not found',
                )
            ]
        ),
        Category.DATASOURCE_MOUNT_FAILED,
        {"volume": "data"},
    ),
    (
        "mount-unattached",
        evidence(
            events=[
                event(
                    "FailedMount",
                    "Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[data kube-api-access-x]: timed out waiting for the condition",
                )
            ]
        ),
        Category.DATASOURCE_MOUNT_FAILED,
        {"volume": "data"},
    ),
    (
        "node-not-ready",
        evidence(
            history=[
                history_event("NodeNotReady", "Node dgx-a100-07 status is now: NodeNotReady", 15)
            ]
        ),
        Category.NODE_FAILURE,
        {"node": "dgx-a100-07"},
    ),
    (
        "node-pressure-eviction",
        evidence(
            events=[
                event("Evicted", "The node was low on resource: memory. Threshold quantity: 100Mi")
            ],
            pods=[pod()],
        ),
        Category.NODE_FAILURE,
        {"node": "dgx-a100-07"},
    ),
    (
        "policy-idle",
        evidence(
            workload(phase="Stopped"),
            history=[
                phase_update(
                    "Stopped",
                    10,
                    "Workload was stopped after exceeding the idle GPU timeout of 30m",
                )
            ],
        ),
        Category.SCHEDULING_POLICY_TERMINATED,
        {"policy": "idle-timeout"},
    ),
    (
        "policy-max-duration",
        evidence(
            workload(phase="Stopped"),
            history=[
                phase_update(
                    "Stopped",
                    10,
                    "Workload exceeded the maximum duration (time limit) of 24h and was stopped",
                )
            ],
        ),
        Category.SCHEDULING_POLICY_TERMINATED,
        {"policy": "max-duration"},
    ),
    (
        "policy-manual",
        evidence(
            workload(phase="Stopped"),
            history=[history_event("Stopped", "Workload stopped by alice@example.com", 10)],
        ),
        Category.SCHEDULING_POLICY_TERMINATED,
        {"policy": "manual-stop"},
    ),
    (
        "crash-exit-1",
        evidence(workload(phaseMessage="container trainer terminated with exit code 1")),
        Category.CRASH_APP_ERROR,
        {"exit_code": 1, "container": "trainer"},
    ),
    (
        "crash-exit-127",
        evidence(events=[event("Failed", "exitCode: 127")]),
        Category.CRASH_APP_ERROR,
        {"exit_code": 127},
    ),
    (
        "segfault-is-app",
        evidence(events=[event("Failed", "exited with code 139")]),
        Category.CRASH_APP_ERROR,
        {"exit_code": 139},
    ),
    (
        "exit-137-alone-is-unknown",
        evidence(events=[event("Error", "container trainer exit code 137")]),
        Category.UNKNOWN,
        {"exit_code": 137},
    ),
    (
        "exit-143-alone-is-unknown",
        evidence(events=[event("Error", "exit code 143")]),
        Category.UNKNOWN,
        {"exit_code": 143},
    ),
    ("pod-error-alone-is-unknown", evidence(pods=[pod("Error")]), Category.UNKNOWN, {}),
    (
        "crashloop-alone-is-unknown",
        evidence(
            events=[event("BackOff", "Back-off restarting failed container trainer in pod x")]
        ),
        Category.UNKNOWN,
        {},
    ),
    ("nothing-is-unknown", evidence(), Category.UNKNOWN, {}),
    (
        "137-explained-by-node",
        evidence(
            events=[
                event("Error", "exit code 137", 11),
                event("NodeNotReady", "Node dgx-a100-07 status is now: NodeNotReady", 12),
            ]
        ),
        Category.NODE_FAILURE,
        {},
    ),
    (
        "newest-failure-wins",
        evidence(events=[event("OOMKilled", "OOMKilled", 300), event("Failed", "exit code 2", 20)]),
        Category.CRASH_APP_ERROR,
        {"exit_code": 2},
    ),
    (
        "same-termination-priority",
        evidence(
            events=[
                event("OOMKilled", "Container was OOMKilled", 20),
                event("Failed", "exit code 1", 19),
            ]
        ),
        Category.OOM_KILLED,
        {},
    ),
    (
        "spec-alone-never-classifies",
        evidence(
            spec_=spec(
                image="nvcr.io/acme/train:v9", command="python train.py --oom ImagePullBackOff"
            )
        ),
        Category.UNKNOWN,
        {},
    ),
    (
        "false-condition-is-not-evidence",
        evidence(
            workload(conditions=[{"type": "Available", "status": "False", "reason": "OOMKilled"}])
        ),
        Category.UNKNOWN,
        {},
    ),
]
