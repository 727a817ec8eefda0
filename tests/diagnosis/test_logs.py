"""The failing log line: the most specific error kind, its last occurrence."""

from __future__ import annotations

import pytest

from diagnosis.logs import failing_line

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
