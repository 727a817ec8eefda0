"""Exit-code meanings and which codes are kills from outside the process."""

from __future__ import annotations

import pytest

from diagnosis.exitcodes import describe_exit_code, is_app_error


@pytest.mark.parametrize(
    ("code", "app_error", "meaning"),
    [
        (0, False, "0"),
        (1, True, "general application error"),
        (2, True, "invalid arguments"),
        (126, True, "not executable"),
        (127, True, "command not found"),
        (134, True, "SIGABRT"),
        (137, False, "SIGKILL"),
        (139, True, "SIGSEGV"),
        (143, False, "SIGTERM"),
        (130, False, "SIGINT"),
        (255, True, "out of range"),
        (42, True, "42"),
    ],
)
def test_exit_codes(code, app_error, meaning):
    assert is_app_error(code) is app_error
    assert meaning in describe_exit_code(code)
