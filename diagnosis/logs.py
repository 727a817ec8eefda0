"""Find the failing line in a container log: the last line that looks like the error.

Logs are written by the workload, so they are never matched against the system lexicon (a
training script may print "OOMKilled" itself); they only supply the quoted failing line for
a verdict that other evidence made, and the GPU-memory finding for CUDA out-of-memory.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["FailingLine", "failing_line"]

#: Most specific first: the first pattern that matches any line picks the line kind.
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "gpu-oom",
        re.compile(r"CUDA out of memory|CUDA error: out of memory|OutOfMemoryError", re.IGNORECASE),
    ),
    (
        "nccl",
        re.compile(
            r"\bNCCL (error|WARN .*failed)|DistBackendError|ncclInternalError", re.IGNORECASE
        ),
    ),
    ("cuda", re.compile(r"\bCUDA error\b|cudaError|CUBLAS_STATUS|CUDNN_STATUS", re.IGNORECASE)),
    ("exception", re.compile(r"^\s*(?:[\w.]+\.)?\w*(?:Error|Exception|Exit|Interrupt)\b(?::|$)")),
    ("segfault", re.compile(r"Segmentation fault|SIGSEGV|core dumped", re.IGNORECASE)),
    ("killed", re.compile(r"^\s*Killed\s*$")),
    (
        "not-found",
        re.compile(r": (?:command )?not found$|No such file or directory", re.IGNORECASE),
    ),
    ("fatal", re.compile(r"\b(FATAL|PANIC|CRITICAL)\b|^\s*(error|fatal):", re.IGNORECASE)),
    ("error", re.compile(r"\bERROR\b|\berror:", re.IGNORECASE)),
)


@dataclass(frozen=True)
class FailingLine:
    """The line to quote, which kind of failure it shows, and its 1-based line number."""

    text: str
    kind: str
    line_number: int


def failing_line(log: str) -> FailingLine | None:
    """The most telling error line: the most specific kind wins, the last such line within it."""
    lines = log.splitlines()
    for kind, pattern in _PATTERNS:
        for index in range(len(lines) - 1, -1, -1):
            if pattern.search(lines[index]):
                return FailingLine(lines[index].strip(), kind, index + 1)
    return None
