"""The process's logging set up for a test, writing JSON lines to a string, then put back."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator
from contextlib import contextmanager

import structlog

from bot.ops.logging import configure_logging


@contextmanager
def logging_to_a_string(level: str) -> Iterator[io.StringIO]:
    """`configure_logging(level, "json")` into the stream yielded; everything restored after.

    Restored: the root logger's handlers and level, `slack_sdk`'s level (which the setup
    raises), structlog's defaults and its bound context variables.
    """
    root, sdk = logging.getLogger(), logging.getLogger("slack_sdk")
    handlers, root_level, sdk_level = root.handlers[:], root.level, sdk.level
    stream = io.StringIO()
    configure_logging(level, "json", stream=stream)
    try:
        yield stream
    finally:
        root.handlers[:] = handlers
        root.setLevel(root_level)
        sdk.setLevel(sdk_level)
        structlog.reset_defaults()
        structlog.contextvars.clear_contextvars()
