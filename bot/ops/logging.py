"""Configures structlog once and routes stdlib logging (httpx, uvicorn, Bolt) through it.

Event names are stable snake_case identifiers (`diagnosis_classified`); values that look
like credentials are masked by `mask_secrets` before any renderer sees them.
"""

from __future__ import annotations

import functools
import logging
import sys
from collections.abc import Mapping, MutableMapping
from typing import Any, TextIO

import structlog

from diagnosis import Redactor

__all__ = ["configure_logging", "mask_secrets"]

_SECRET_KEYS = (
    "token", "secret", "password", "passwd", "authorization", "auth", "response_url", "cookie",
    "signing", "api_key", "apikey", "credential", "private_key", "session",
)  # fmt: skip
_MASK = "[REDACTED]"
_META = frozenset({"_record", "_from_structlog"})  # ProcessorFormatter's own, never rendered


def _secret_key(key: object) -> bool:
    return isinstance(key, str) and _names_a_secret(key)


@functools.lru_cache(maxsize=1024)
def _names_a_secret(key: str) -> bool:
    """Whether a field name names a credential; log lines reuse a few dozen names."""
    return any(part in key.lower() for part in _SECRET_KEYS)


def _masked(value: Any, redactor: Redactor) -> Any:
    """`value` with credentials masked: strings cleaned, containers walked, keys checked."""
    if isinstance(value, str):
        return redactor.clean(value) if value else value
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, Mapping):
        return {
            k: _MASK if _secret_key(k) and v is not None else _masked(v, redactor)
            for k, v in value.items()
        }
    if isinstance(value, list | tuple | set | frozenset):
        return [_masked(v, redactor) for v in value]
    text = str(value)  # an exception, a URL object, a model: rendered as text anyway
    cleaned = redactor.clean(text)
    return value if cleaned == text else cleaned


def mask_secrets(_: Any, __: str, event_dict: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    """Mask credentials before any renderer sees them (a structlog processor).

    Values whose key names a credential (`token`, `signing_secret`, `response_url`,
    `authorization`, ...) are replaced whole; every other value, the event message included,
    goes through the same `Redactor` as quoted evidence, so a token inside a message string,
    a URL or an exception's traceback is masked too.
    """
    if event_dict.get("exc_info"):
        # Render the traceback here, where it can still be cleaned, not after masking.
        event_dict = structlog.processors.format_exc_info(_, __, event_dict)
    redactor = Redactor()
    for key in list(event_dict):
        value = event_dict[key]
        if key in _META or value is None:
            continue
        event_dict[key] = _MASK if _secret_key(key) else _masked(value, redactor)
    return event_dict


def configure_logging(level: str = "INFO", fmt: str = "json", stream: TextIO | None = None) -> None:
    """Set up structlog and the stdlib bridge; call once, at the entry point."""
    shared: list[Any] = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        mask_secrets,
    ]
    renderer: Any = (
        structlog.dev.ConsoleRenderer(colors=False)
        if fmt == "console"
        else structlog.processors.JSONRenderer()
    )
    structlog.configure(
        # A debug event at level INFO is dropped first, before it is masked and rendered.
        processors=[
            structlog.stdlib.filter_by_level,
            *shared,
            structlog.stdlib.ProcessorFormatter.wrap_for_formatter,
        ],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=False,
    )
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=shared,
            processors=[
                structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                structlog.processors.format_exc_info,
                renderer,
            ],
        )
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    for noisy in ("httpx", "httpcore", "uvicorn.access"):
        logging.getLogger(noisy).setLevel(max(logging.WARNING, root.level))
    # At DEBUG, slack_sdk logs every request body: whole `chat.update` payloads (the report).
    logging.getLogger("slack_sdk").setLevel(max(logging.INFO, root.level))
