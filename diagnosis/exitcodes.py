"""What container exit codes mean, and which ones are a kill from outside the process."""

from __future__ import annotations

import signal

__all__ = ["SIGKILL_EXIT", "SYSTEM_KILL_CODES", "describe_exit_code", "is_app_error"]

#: Exit codes above this are 128 + the number of the signal that ended the process.
SIGNAL_BASE = 128
#: 128 + SIGKILL: killed from outside; OOM only when the kubelet says OOMKilled.
SIGKILL_EXIT = SIGNAL_BASE + int(signal.SIGKILL)

_MEANINGS: dict[int, str] = {
    1: "general application error (an unhandled exception or explicit exit(1))",
    2: "misuse of a command or invalid arguments (e.g. an argparse usage error)",
    126: "command found but not executable (permissions or wrong format)",
    127: "command not found (entrypoint or binary missing from the image or PATH)",
    128: "the container could not start: the runtime failed to run its command",
    255: "exit status out of range (exit(-1) or a fatal runtime error)",
}
_SIGNAL_NOTES: dict[int, str] = {
    signal.SIGABRT: "the process aborted itself (failed assertion, CUDA/NCCL abort)",
    signal.SIGSEGV: "segmentation fault inside the process",
    signal.SIGBUS: "bus error inside the process",
    signal.SIGFPE: "arithmetic error inside the process",
    signal.SIGILL: "illegal instruction (binary built for another CPU)",
    signal.SIGKILL: "killed from outside: OOM killer, eviction, preemption or a manual kill",
    signal.SIGTERM: "asked to terminate: a stop, eviction, preemption or policy",
    signal.SIGINT: "interrupted",
    signal.SIGHUP: "hang-up",
}

#: Exit codes that mean "something outside killed or stopped the process" (128 + N).
SYSTEM_KILL_CODES: frozenset[int] = frozenset(
    128 + int(s) for s in (signal.SIGKILL, signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
)


def describe_exit_code(code: int) -> str:
    """Human meaning of an exit code: `137 (SIGKILL: killed from outside: ...)`."""
    if code in _MEANINGS:
        return f"{code} ({_MEANINGS[code]})"
    if SIGNAL_BASE < code < SIGNAL_BASE + 65:
        number = code - SIGNAL_BASE
        try:
            name = signal.Signals(number).name
        except ValueError:
            return f"{code} (terminated by signal {number})"
        note = _SIGNAL_NOTES.get(signal.Signals(number))
        return f"{code} ({name}: {note})" if note else f"{code} ({name})"
    return f"{code}"


def is_app_error(code: int) -> bool:
    """Non-zero and not a kill from outside: the workload's own code or configuration."""
    return code != 0 and code not in SYSTEM_KILL_CODES
