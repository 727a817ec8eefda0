"""The Run:ai settings become the engine's `RunaiConfig`, or one error naming what is wrong."""

from __future__ import annotations

import pytest
from pydantic import SecretStr

from bot.config import ConfigError, RunaiSettings


def test_the_config_is_trimmed():
    runai = RunaiSettings(
        runai_url=" https://acme.run.ai/ ",
        runai_client_id=" runai-why ",
        runai_client_secret=SecretStr("s3cret"),
        runai_timeout_s=5,
        runai_retries=1,
    )
    config = runai.config()
    assert (config.url, config.client_id, config.timeout_s, config.retries) == (
        "https://acme.run.ai",
        "runai-why",
        5.0,
        1,
    )
    assert config.client_secret.get_secret_value() == "s3cret"


#: (RUNAI_URL, RUNAI_CLIENT_ID, RUNAI_CLIENT_SECRET, the one error)
BAD = [
    (None, None, None, "set RUNAI_URL, RUNAI_CLIENT_ID, RUNAI_CLIENT_SECRET to reach"),
    ("https://change-me.run.ai", "x", "y", "set RUNAI_URL to reach a Run:ai control plane"),
    (
        "acme.run.ai",
        "x",
        "change-me",
        "set RUNAI_CLIENT_SECRET to reach a Run:ai control "
        "plane; RUNAI_URL must look like https://acme.run.ai (got 'acme.run.ai')",
    ),
    ("https://a:b:c", "x", "y", "RUNAI_URL 'https://a:b:c' is not a valid URL"),
]


@pytest.mark.parametrize(("url", "client_id", "secret", "error"), BAD)
def test_every_problem_is_named_at_once(url, client_id, secret, error):
    runai = RunaiSettings(
        runai_url=url,
        runai_client_id=client_id,
        runai_client_secret=SecretStr(secret) if secret else None,
    )
    with pytest.raises(ConfigError) as raised:
        runai.config()
    assert str(raised.value).startswith(error)
