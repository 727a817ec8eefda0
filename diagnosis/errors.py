"""The one exception tree that leaves the diagnosis package.

```
DiagnosisError                  anything the engine raises on purpose
├── InvalidRequest              the caller's identifiers or options are malformed
│   └── KubeAccessError*        the Kubernetes access configuration is unusable (also a
│                               ValueError, for the settings validator)
├── AccessDenied*               the asker may not see the workload asked for by ID
├── ReadOnlyViolation*          a request other than GET (or the token POST) was about to leave
├── TokenUnreadable*            the Kubernetes token file cannot be read
└── UpstreamError               a call to the Run:ai control plane (or Kubernetes) failed
    ├── AuthError               401/403, or the token endpoint refused the credentials
    ├── NotFound                404 for the resource that was asked for
    ├── UpstreamTimeout         no answer within the configured timeout (after retries)
    │   └── DeadlinePassed*     the call was still running when the diagnosis deadline passed
    └── UpstreamUnavailable     connection refused/reset, 429 or 5xx after retries,
        │                       or a body that is not the documented shape
        ├── PartialHistory      history past the read cap (what was read is kept)
        └── PageCap*            a list's pagination did not end within the page cap
```

`*`: defined beside the code that raises it (`diagnosis.kube.config`, `diagnosis.access`,
`diagnosis.http.transport`, `diagnosis.fetch`, `diagnosis.runai.session`), each a subclass of
its place in this tree, so `except DiagnosisError` catches every one. Catch the root to catch
everything the engine raises on purpose; anything else is a bug.

No `httpx` exception escapes a client: the clients translate them into this tree at the
edge, and every `UpstreamError` names the call that failed (`operation`, the skill's tool
name where there is one) and the URL, so a user-facing message can say what to try.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "AuthError",
    "DiagnosisError",
    "InvalidRequest",
    "NotFound",
    "PartialHistory",
    "UpstreamError",
    "UpstreamTimeout",
    "UpstreamUnavailable",
]


class DiagnosisError(Exception):
    """Base class of every error the diagnosis engine raises on purpose."""


class InvalidRequest(DiagnosisError):
    """The request's identifiers or options are malformed (not: missing; that is an outcome)."""


class UpstreamError(DiagnosisError):
    """A call to an upstream API failed.

    Attributes:
        operation: what was being done, e.g. ``get_workload_status``.
        url: the URL that was called, without credentials or query secrets.
        status: the HTTP status code, when a response arrived.
    """

    def __init__(
        self,
        message: str,
        *,
        operation: str,
        url: str,
        status: int | None = None,
    ) -> None:
        super().__init__(message)
        self.operation = operation
        self.url = url
        self.status = status

    def __str__(self) -> str:
        status = f" (HTTP {self.status})" if self.status is not None else ""
        return f"{self.operation}: {self.args[0]}{status} [{self.url}]"


class AuthError(UpstreamError):
    """The upstream refused our credentials (401/403) or the token request failed."""


class NotFound(UpstreamError):
    """The requested resource does not exist (HTTP 404)."""


class UpstreamTimeout(UpstreamError):
    """The upstream did not answer in time, after the bounded retries."""


class UpstreamUnavailable(UpstreamError):
    """The upstream could not be reached or kept failing (connect error, 429, 5xx, bad body)."""


class PartialHistory(UpstreamUnavailable):
    """History longer than the read cap: `records` were read, the rest was not.

    Attributes:
        records: what was read before the cap (never discarded).
        missing: which part was not read, e.g. ``older than 2025-11-04 07:40:00Z`` (pages
            newest first) or ``newer than ...`` (pages oldest first).
    """

    def __init__(
        self, message: str, *, operation: str, url: str, records: list[Any], missing: str
    ) -> None:
        super().__init__(message, operation=operation, url=url)
        self.records = records
        self.missing = missing
