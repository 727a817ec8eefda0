"""Read the end of a container log, and find the line that explains the failure in it.

Logs are written by the workload, so they are never matched against the system lexicon (a
training script may print "OOMKilled" itself); they only supply the quoted failing line for
a verdict that other evidence made, and the GPU-memory finding for CUDA out-of-memory.

The line quoted is the root error, not its wrapper: a launcher that reports its child's
failure (`ChildFailedError`, `CalledProcessError`, torchrun's `failed (exitcode: 1)`) is
quoted only when the log holds nothing more specific.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from diagnosis.errors import UpstreamError
from diagnosis.redact import clip
from diagnosis.xid import XidPoints, xid_in

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from diagnosis.redact import Redactor

__all__ = ["FailingLine", "LogRead", "failing_line", "read_log_tail"]

#: How much of a long line either side of the quote is redacted (`FailingLine.quote`).
_MARGIN = 1024

#: Prefixes launchers put before each line of a rank's output (`[rank3]:`, `[default0]:`).
_RANK = r"(?:\[(?:rank|default)\d+\]:[ \t]*)?"

#: Lines that report another process's failure; quoted only when nothing else matches.
_WRAPPER = re.compile(
    r"ChildFailedError|CalledProcessError|ProcessRaisedException|ProcessExitedException"
    r"|SignalException|\bfailed \(exitcode: -?\d+\)"
    r"|process \d+ terminated with (?:exit code|signal)|Sending process \d+ closing signal"
    r"|exits with return code = -?\d+|mpirun noticed that process rank",
    re.IGNORECASE,
)

#: Most specific first: the first pattern that matches any line picks the line kind.
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "gpu-hardware",
        re.compile(
            r"\bNVRM: Xid\b|\bXid \(PCI:|uncorrectable ECC error|double[- ]bit ECC error"
            r"|cudaErrorECCUncorrectable|GPU has fallen off the bus|row remapping failure"
            r"|uncorrectable NVLink error|GPU is lost|GPU requires reset",
            re.IGNORECASE,
        ),
    ),
    (
        "gpu-oom",
        re.compile(r"CUDA out of memory|CUDA error: out of memory|OutOfMemoryError", re.IGNORECASE),
    ),
    (
        "nccl-timeout",
        re.compile(
            r"Watchdog caught collective operation timeout"
            r"|WorkNCCL\(SeqNum=\d+[^)]{0,400}Timeout\(ms\)"  # bounded: linear over repeats
        ),
    ),
    (
        "rendezvous",
        re.compile(
            r"DistStoreError|(?<!\d)\d+/\d+ clients joined|RendezvousTimeoutError"
            r"|failed to pass monitoredBarrier|client socket has timed out after"
        ),
    ),
    (
        "nccl",
        re.compile(
            # the first `NCCL WARN`, taken once (`(?>…)`), with one of the words after it
            r"\bNCCL error|^(?>.*?\b(?P<at>NCCL WARN)\b).*?(?:failed|closed|error)"
            r"|DistBackendError|ncclInternalError"
            r"|ncclSystemError|Connection closed by remote peer|Got completion from peer"
            r"|ncclUnhandledCudaError|ncclRemoteError",
            re.IGNORECASE,
        ),
    ),
    ("cuda", re.compile(r"\bCUDA error\b|cudaError|CUBLAS_STATUS|CUDNN_STATUS", re.IGNORECASE)),
    (
        "exception",
        re.compile(
            rf"^\s*{_RANK}(?:[\w.]+\.)?\w*(?:Error|Exception|Exit|Interrupt)\b(?::|$)"
            r"|(?<=[\s\"'=])(?:[a-z_][\w]*\.)*[A-Z]\w*(?:Error|Exception): "
        ),
    ),
    ("segfault", re.compile(r"Segmentation fault|SIGSEGV|core dumped", re.IGNORECASE)),
    ("killed", re.compile(rf"^\s*{_RANK}Killed\s*$")),
    (
        "not-found",
        re.compile(r": (?:command )?not found$|No such file or directory", re.IGNORECASE),
    ),
    ("fatal", re.compile(r"\b(FATAL|PANIC|CRITICAL)\b|^\s*(error|fatal):", re.IGNORECASE)),
    ("error", re.compile(r"\bERROR\b|\berror:", re.IGNORECASE)),
)
_BY_KIND = {**dict(_PATTERNS), "wrapper": _WRAPPER}
_BY_KIND["gpu-app-fault"] = _BY_KIND["gpu-hardware"]


@dataclass(frozen=True)
class FailingLine:
    """The line to quote, which kind of failure it shows, and its 1-based line number."""

    text: str
    kind: str
    line_number: int

    def quote(self, redactor: Redactor, limit: int = 200) -> str:
        """The line redacted, then cut to `limit` around what made it the failing line.

        Redaction comes first, so a cut can never leave half a secret unrecognised; the cut
        falls on word boundaries and never inside a redaction marker. A line far longer than
        the quote (a log line can be 64 KB, and the workload writes it) is first cut to
        `_MARGIN` either side of the quote, so that redaction reads kilobytes, not the whole
        line; a secret reaching into the quote from beyond is masked from the part inside.
        """
        text = self.text
        if len(text) > limit + 2 * _MARGIN:
            at = _anchor(_BY_KIND[self.kind].search(text))
            text = text[max(0, at - _MARGIN) : at + limit + _MARGIN]
        cleaned = " ".join(redactor.clean(text).split())
        return clip(cleaned, _anchor(_BY_KIND[self.kind].search(cleaned)), limit)


def _anchor(found: re.Match[str] | None) -> int:
    """Where what made the line the failing line starts (a pattern's `at` group if it has one)."""
    if found is None:
        return 0
    if "at" in found.re.groupindex and found.start("at") >= 0:
        return found.start("at")
    return found.start()


def failing_line(log: str) -> FailingLine | None:
    """The most telling error line: the most specific kind wins, the last such line within it.

    A wrapper line (`...ChildFailedError:`) is never taken for a root error of any kind; it
    is the answer only when the log holds no other error line.
    """
    lines = log.splitlines()
    roots = [(i, line) for i, line in enumerate(lines) if not _WRAPPER.search(line)]
    for kind, pattern in _PATTERNS:
        for index, line in reversed(roots):
            if pattern.search(line):
                return FailingLine(line.strip(), _refined(kind, line), index + 1)
    for index in range(len(lines) - 1, -1, -1):
        if _WRAPPER.search(lines[index]):
            return FailingLine(lines[index].strip(), "wrapper", index + 1)
    return None


def _refined(kind: str, line: str) -> str:
    """A GPU line whose Xid points to the application is `gpu-app-fault` (`diagnosis.xid`)."""
    if kind == "gpu-hardware" and (xid := xid_in(line)) and xid.points is XidPoints.APPLICATION:
        return "gpu-app-fault"
    return kind


@dataclass(frozen=True)
class LogRead:
    """What one `kubectl logs` read returned, and how complete it is.

    `lines` is the `tailLines` of the read that gave `text` (fewer than asked when long lines
    made the first read too big); `cut` means even that read hit the byte limit, so the end
    of the log is missing from `text`.
    """

    text: str
    lines: int
    asked: int
    limit_bytes: int
    cut: bool

    def describe(self) -> str:
        """How much was read, for the report: `the last 31 lines (200 asked; lines are long)`."""
        if self.cut:
            return (
                f"even the last {self.lines} line(s) exceed the {self.limit_bytes}-byte read "
                "limit, so only their start was read"
            )
        if self.lines < self.asked:
            return f"read the last {self.lines} lines; {self.asked} asked, the lines are long"
        return f"read the last {self.lines} lines"


#: A read whose UTF-8 size is this close to the limit may have been cut (a cut inside a
#: multi-byte character decodes to a replacement character of a different size).
_CUT_SLACK = 3


async def read_log_tail(
    read: Callable[[int], Awaitable[str]],
    *,
    tail_lines: int = 200,
    limit_bytes: int = 64_000,
    attempts: int = 4,
) -> LogRead:
    """Read the last `tail_lines` lines so that the end of the log is always in what is read.

    The API applies `tailLines` first and `limitBytes` to the start of that tail, so with long
    lines a read returns the start of the tail and loses its end (where the traceback is).
    `read(n)` reads the last `n` lines; when its answer fills the byte limit, it is asked again
    for as many lines as fitted, fewer each time, until the tail fits or one line is left.

    Only the first read's error is raised; when a retry fails, the cut read is kept (and
    marked cut): part of the log is evidence, and the report says its end is missing.
    """
    lines = tail_lines
    text = await read(lines)
    for _ in range(attempts - 1):
        if len(text.encode("utf-8", "replace")) < limit_bytes - _CUT_SLACK:
            return LogRead(text, lines, tail_lines, limit_bytes, cut=False)
        if lines <= 1:
            break
        fitted = text.count("\n")
        fewer = max(1, fitted if fitted < lines else lines // 2)
        try:
            text, lines = await read(fewer), fewer
        except UpstreamError:
            break
    cut = len(text.encode("utf-8", "replace")) >= limit_bytes - _CUT_SLACK
    return LogRead(text, lines, tail_lines, limit_bytes, cut=cut)
