"""detect-secrets as an oracle: whatever it finds in the leak corpus, the redactor masks.

detect-secrets scans files, with its default plugins and filters. It is a second opinion,
not the standard: the corpus holds forms it does not know (`wandb login <hex>`, `the
password is ...`), and it flags image digests the clean corpus must keep.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from detect_secrets.core.secrets_collection import SecretsCollection
from detect_secrets.settings import default_settings

from diagnosis.redact import Redactor
from tests.diagnosis.redact.corpus import LEAKS, Leak


def oracle(text: str, tmp_path: Path) -> list[str]:
    """The secret values detect-secrets reports in `text`."""
    path = tmp_path / "evidence.log"
    path.write_text(text)
    found = SecretsCollection()
    with default_settings():
        found.scan_file(str(path))
    return [secret.secret_value for _, secret in found if secret.secret_value]


@pytest.mark.parametrize("leak", LEAKS, ids=lambda leak: leak.id)
def test_what_the_oracle_finds_is_masked(leak: Leak, tmp_path: Path):
    cleaned = Redactor().clean(leak.text)
    assert [value for value in oracle(leak.text, tmp_path) if value in cleaned] == []
    assert oracle(cleaned, tmp_path) == []


def test_the_oracle_is_not_vacuous(tmp_path: Path):
    found = sum(bool(oracle(leak.text, tmp_path)) for leak in LEAKS)
    assert found >= 40
