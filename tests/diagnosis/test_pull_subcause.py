"""Why an image pull failed, from the registry's error text (`diagnosis.signals.pull_subcause`)."""

from __future__ import annotations

import pytest

from diagnosis.signals import pull_subcause

DIGEST = (
    "nvcr.io/acme/train@sha256:9c2e401b7d3f5a60e1c48b2f9d7a3e6c5b4a1f0e9d8c7b6a5f4e3d2c1b0a9f8e"
)


@pytest.mark.parametrize(
    ("text", "subcause"),
    [
        (f'Failed to pull image "{DIGEST}": {DIGEST}: not found', "not-found"),
        ('Failed to pull image "acme/build4015:v1": manifest unknown', "not-found"),
        ('Failed to pull image "acme/train:401": manifest unknown', "not-found"),
        ("failed to fetch oauth token: unexpected status: 401 Unauthorized", "auth"),
        ("failed to authorize: unexpected status code 401", "auth"),
        ("server returned status: 401", "auth"),
        ("unauthorized: authentication required", "auth"),
        ("no basic auth credentials", "auth"),
        ("unexpected status code 403 Forbidden", "auth"),
        ("pull access denied for acme/secret-model, repository does not exist", "repo-or-access"),
        ("toomanyrequests: You have reached your pull rate limit.", "rate-limit"),
        ("dial tcp: lookup registry.acme.internal on 10.96.0.10:53: no such host", "network"),
        ('couldn\'t parse image reference "Acme/Train"', "invalid-name"),
        ("Back-off pulling image", None),
    ],
)
def test_the_subcause_is_read_from_the_error_not_the_image_reference(text, subcause):
    assert pull_subcause(text) == subcause
