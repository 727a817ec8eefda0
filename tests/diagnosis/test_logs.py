"""The failing log line: the root error, its last occurrence, quoted; reading the log's end."""

from __future__ import annotations

import pytest

from diagnosis.errors import UpstreamUnavailable
from diagnosis.logs import LogRead, failing_line, read_log_tail
from diagnosis.redact import MARKER, Redactor

TRACEBACK = """\
epoch 3 step 1200 loss 0.412
Traceback (most recent call last):
  File "/workspace/train.py", line 88, in <module>
    main()
  File "/workspace/train.py", line 61, in main
    batch = int(os.environ["BATCH_SIZE"])
ValueError: invalid literal for int() with base 10: 'auto'
"""

CASES = [
    (TRACEBACK, "exception", "ValueError: invalid literal for int() with base 10: 'auto'"),
    (
        "step 1\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n",
        "gpu-oom",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
    ),
    (
        "x\ntorch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970, unhandled system error\n",
        "nccl",
        "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970, unhandled system error",
    ),
    ("loading\n/bin/sh: 1: torchrun: not found\n", "not-found", "/bin/sh: 1: torchrun: not found"),
    ("ok\nSegmentation fault (core dumped)\n", "segfault", "Segmentation fault (core dumped)"),
    ("ok\nKilled\n", "killed", "Killed"),
    (
        "usage: train.py [-h] --epochs EPOCHS\ntrain.py: error: unrecognized arguments: --bs 64\n",
        "error",
        "train.py: error: unrecognized arguments: --bs 64",
    ),
    ("all fine\nepoch 9 done\n", None, None),
    ("", None, None),
]


@pytest.mark.parametrize(("log", "kind", "line"), CASES)
def test_failing_line(log, kind, line):
    found = failing_line(log)
    if kind is None:
        assert found is None
    else:
        assert found is not None
        assert (found.kind, found.text) == (kind, line)


def test_gpu_oom_beats_a_later_generic_error():
    log = "CUDA out of memory. Tried to allocate 1 GiB\nERROR: worker 0 exited\n"
    found = failing_line(log)
    assert found is not None
    assert found.kind == "gpu-oom"


# ------------------------------------------------------------------ root error, not wrapper

WATCHDOG = (
    "[rank1]:[E1104 07:43:10.123456 38 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught "
    "collective operation timeout: WorkNCCL(SeqNum=5821, OpType=ALLREDUCE, NumelIn=262144, "
    "NumelOut=262144, Timeout(ms)=600000) ran for 600041 milliseconds before timing out."
)
CHILD_FAILED = "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: "
ELASTIC_SUMMARY = f"""\
{WATCHDOG}
[rank1]:[E1104 07:43:10.200000 38 ProcessGroupNCCL.cpp:1716] [PG 0 Rank 1] Exception (either an error or timeout) detected by watchdog at work: 5821
E1104 07:43:12.000000 140 torch/distributed/elastic/multiprocessing/api.py:826] failed (exitcode: -6) local_rank: 1 (pid: 38) of binary: /usr/bin/python
Traceback (most recent call last):
  File "/usr/local/bin/torchrun", line 8, in <module>
    sys.exit(main())
{CHILD_FAILED}
============================================================
train.py FAILED
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  rank      : 1 (local_rank: 1)
  exitcode  : -6 (pid: 38)
  error_file: <N/A>
============================================================
"""
XID = "NVRM: Xid (PCI:0000:3b:00): 79, pid=2211, name=python, GPU has fallen off the bus."
ECC = "RuntimeError: CUDA error: uncorrectable ECC error encountered"
RANKED_TRACEBACK = """\
[rank3]: Traceback (most recent call last):
[rank3]:   File "/workspace/train.py", line 40, in <module>
[rank3]: FileNotFoundError: [Errno 2] No such file or directory: '/data/shard-0007.bin'
E1104 07:43:12.000000 140 api.py:826] failed (exitcode: 1) local_rank: 3 (pid: 41) of binary: /usr/bin/python
subprocess.CalledProcessError: Command '['torchrun', 'train.py']' returned non-zero exit status 1.
"""

ROOT_CASES = [
    pytest.param(ELASTIC_SUMMARY, "nccl-timeout", WATCHDOG, id="nccl-watchdog-beats-childfailed"),
    pytest.param(
        f"step 9\n{WATCHDOG}\nERROR: rank 0 exited\n", "nccl-timeout", WATCHDOG, id="watchdog"
    ),
    pytest.param(
        RANKED_TRACEBACK,
        "exception",
        "[rank3]: FileNotFoundError: [Errno 2] No such file or directory: '/data/shard-0007.bin'",
        id="rank-prefixed-root-beats-calledprocesserror",
    ),
    pytest.param(
        f"loading\n{CHILD_FAILED}\n", "wrapper", CHILD_FAILED.strip(), id="wrapper-when-alone"
    ),
    pytest.param(
        "[rank0]: Traceback (most recent call last):\n[rank0]: ValueError: bad shape\n"
        f"{CHILD_FAILED}\n",
        "exception",
        "[rank0]: ValueError: bad shape",
        id="root-exception-beats-wrapper-exception",
    ),
    pytest.param(f"epoch 1\n{XID}\n{ECC}\n", "gpu-hardware", ECC, id="ecc-last-hardware-line"),
    pytest.param(f"epoch 1\n{XID}\nKilled\n", "gpu-hardware", XID, id="xid-beats-killed"),
    pytest.param(
        "CUDA out of memory. Tried to allocate 1 GiB\n"
        "RuntimeError: CUDA error: uncorrectable ECC error encountered\n",
        "gpu-hardware",
        ECC,
        id="ecc-beats-gpu-oom",
    ),
    pytest.param(
        "Volatile Uncorr. ECC: 0\nall fine\n", None, None, id="ecc-counter-is-not-an-error"
    ),
    pytest.param(
        "[rank0]: RuntimeError: CUDA error: an uncorrectable NVLink error was detected\n"
        "[2025-11-04 07:44:39] [ERROR] [launch.py:325:sigkill_handler] ['python', 'train.py'] "
        "exits with return code = 1\n",
        "gpu-hardware",
        "[rank0]: RuntimeError: CUDA error: an uncorrectable NVLink error was detected",
        id="nvlink-beats-deepspeed-launcher",
    ),
    pytest.param(
        "step 3\nmpirun noticed that process rank 0 with PID 0 on node n1 exited on signal 9.\n",
        "wrapper",
        "mpirun noticed that process rank 0 with PID 0 on node n1 exited on signal 9.",
        id="mpirun-is-a-wrapper",
    ),
]


@pytest.mark.parametrize(("log", "kind", "line"), ROOT_CASES)
def test_root_error_not_its_wrapper(log, kind, line):
    found = failing_line(log)
    if kind is None:
        assert found is None
        return
    assert found is not None
    assert (found.kind, found.text) == (kind, line)


# ------------------------------------------------------------------ the quote

SECRET = "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"
QUOTE_CASES = [
    pytest.param(
        '{"level":"info","msg":"' + "payload " * 120 + '"} ValueError: bad token ' + SECRET,
        "ValueError: bad token [REDACTED:huggingface-token]",
        id="anchor-kept-in-long-line",
    ),
    pytest.param(WATCHDOG, "Watchdog caught collective operation timeout", id="watchdog-short"),
    pytest.param(
        "x " * 20 + ECC + " while " + "copying " * 60,
        "CUDA error: uncorrectable ECC error encountered",
        id="hardware-anchor",
    ),
]


@pytest.mark.parametrize(("log", "must_show"), QUOTE_CASES)
def test_quote_keeps_the_anchor_and_cuts_at_words(log, must_show):
    found = failing_line(log)
    assert found is not None
    quote = found.quote(Redactor(), 120)
    assert must_show in quote
    assert len(quote) <= 120 + 4
    assert SECRET not in quote
    for part in quote.removeprefix("… ").removesuffix(" …").split():
        assert part in found.text or part.startswith("[REDACTED:"), part
    for marker in MARKER.findall(" ".join(Redactor().clean(found.text).split())):
        assert marker in quote or marker[:8] not in quote


# ------------------------------------------------------------------ reading the end of the log


class Kubelet:
    """Reads as the API does: the last `n` lines first, then the first `limit` bytes of them."""

    def __init__(self, log: str) -> None:
        self.log = log
        self.calls: list[int] = []

    async def __call__(self, n: int) -> str:
        self.calls.append(n)
        tail = "".join(self.log.splitlines(keepends=True)[-n:]) if n else ""
        return tail.encode()[:LIMIT].decode("utf-8", "replace")


kubelet = Kubelet


LIMIT = 64_000
LONG = "".join(f'{{"step": {i}, "metrics": "{"m" * 2000}"}}\n' for i in range(300))
TAIL_ERROR = "ValueError: loss is NaN at step 299"
HUGE_LAST = "step 1\n" + "z" * 70_000 + " ValueError: at the very end\n"

READ_CASES = [
    pytest.param("ok\n" * 10 + TAIL_ERROR + "\n", False, 200, True, id="short-log-one-read"),
    pytest.param(LONG + TAIL_ERROR + "\n", False, 31, True, id="2kb-lines-retry-keeps-the-end"),
    pytest.param(LONG, False, 31, False, id="2kb-lines-no-error"),
    pytest.param(HUGE_LAST, True, 1, False, id="one-line-longer-than-the-limit"),
]


@pytest.mark.parametrize(("log", "cut", "lines", "finds_tail"), READ_CASES)
async def test_read_log_tail_always_holds_the_end(log, cut, lines, finds_tail):
    read = kubelet(log)
    got = await read_log_tail(read, tail_lines=200, limit_bytes=LIMIT)
    assert (got.cut, got.lines) == (cut, lines)
    assert read.calls[0] == 200
    assert len(read.calls) <= 4
    if not cut:
        assert log.endswith(got.text)
    found = failing_line(got.text)
    assert (found is not None and found.text == TAIL_ERROR) is finds_tail
    described = got.describe()
    assert ("only their start was read" in described) is cut
    assert ("the lines are long" in described) is (not cut and lines < 200)


def test_describe_a_complete_read():
    assert LogRead("x\n", 200, 200, LIMIT, cut=False).describe() == "read the last 200 lines"


@pytest.mark.parametrize(
    ("fail_on", "raises"),
    [
        pytest.param(1, True, id="first-read-fails-is-a-gap"),
        pytest.param(2, False, id="retry-fails"),
    ],
)
async def test_a_failed_retry_keeps_the_cut_read(fail_on, raises):
    read = kubelet(LONG + TAIL_ERROR + "\n")

    async def flaky(n: int) -> str:
        if len(read.calls) + 1 == fail_on:
            read.calls.append(n)
            raise UpstreamUnavailable(
                "the Kubernetes API kept failing", operation="kubectl logs", url="/log"
            )
        return await read(n)

    if raises:
        with pytest.raises(UpstreamUnavailable):
            await read_log_tail(flaky, tail_lines=200, limit_bytes=LIMIT)
        return
    got = await read_log_tail(flaky, tail_lines=200, limit_bytes=LIMIT)
    assert (got.cut, got.lines) == (True, 200)
    assert got.text.startswith('{"step": 101,')  # the start of the last 200 lines
