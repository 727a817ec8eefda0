"""NCCL and rendezvous lines are read into facts: rank, operation, sequence, timeout, peer.

The lines are PyTorch's and NCCL's own wordings (ProcessGroupNCCL's watchdog, the c10d TCP
store, the c10d socket, the Gloo monitored barrier, NCCL's socket and InfiniBand transports).
Only what a line says is read: a field it does not state stays None.
"""

from __future__ import annotations

import pytest

from diagnosis.collective import CollectiveFact, line_rank, parse

WATCHDOG = (
    "[rank3]:[E1104 07:44:21.123456 1234 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught "
    "collective operation timeout: WorkNCCL(SeqNum=4821, OpType=ALLREDUCE, NumelIn=1048576, "
    "NumelOut=1048576, Timeout(ms)=600000) ran for 600013 milliseconds before timing out."
)

CASES = [
    # id, line, the fact
    ("watchdog", WATCHDOG, CollectiveFact(
        "watchdog-timeout", rank=3, operation="ALLREDUCE", sequence=4821, timeout_ms=600000,
        ran_ms=600013)),
    ("watchdog-older-wording",
     "[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=12, "
     "OpType=BROADCAST, Timeout(ms)=1800000) ran for 1800541 milliseconds before timing out.",
     CollectiveFact("watchdog-timeout", rank=0, operation="BROADCAST", sequence=12,
                    timeout_ms=1800000, ran_ms=1800541)),
    ("stuck-collective",
     "[rank1]:[E ProcessGroupNCCL.cpp:1537] [PG 0 Rank 1] Timeout at NCCL work: 4821, last "
     "enqueued NCCL work: 4821, last completed NCCL work: 4820.",
     CollectiveFact("stuck-collective", rank=1, sequence=4821)),
    ("tcp-store-clients",
     "torch.distributed.DistStoreError: Timed out after 901 seconds waiting for clients. "
     "3/4 clients joined.",
     CollectiveFact("rendezvous-timeout", timeout_ms=901000, joined=3, expected=4)),
    ("socket-connect",
     "[W socket.cpp:697] [c10d] The client socket has timed out after 900s while trying to "
     "connect to (llm-ddp-master-0, 23456).",
     CollectiveFact("connect-timeout", timeout_ms=900000, peer="llm-ddp-master-0:23456")),
    ("monitored-barrier",
     "RuntimeError: [Rank 0]: Ranks 1, 3 failed to pass monitoredBarrier in 30000 ms",
     CollectiveFact("barrier-timeout", rank=0, timeout_ms=30000, peer="1, 3")),
    ("nccl-socket-peer",
     "llm-ddp-worker-0:231:402 [0] misc/socket.cc:538 NCCL WARN Net : Connection closed by "
     "remote peer llm-ddp-worker-1.llm-ddp.runai-nlp.svc<54082>",
     CollectiveFact("peer-closed", peer="llm-ddp-worker-1.llm-ddp.runai-nlp.svc:54082")),
    ("nccl-ib-peer",
     "NCCL WARN NET/IB : Got completion from peer 10.1.2.3<47110> with error 12, opcode 0, "
     "len 0, vendor err 129 (Recv) localGid ::ffff:10.1.2.4",
     CollectiveFact("peer-closed", peer="10.1.2.3:47110")),
    ("elastic-rendezvous",
     "torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError",
     CollectiveFact("rendezvous-timeout")),
    ("not-a-collective-line", "RuntimeError: CUDA error: an illegal memory access", None),
]  # fmt: skip


@pytest.mark.parametrize(("line", "fact"), [pytest.param(*c[1:], id=c[0]) for c in CASES])
def test_parse(line, fact):
    assert parse(line) == fact


DESCRIPTIONS = [
    (WATCHDOG, ["rank 3", "ALLREDUCE #4821", "600.013 s", "timeout 600 s"]),
    ("Timed out after 901 seconds waiting for clients. 3/4 clients joined.",
     ["3 of 4 ranks joined", "1 never did"]),
    ("The client socket has timed out after 900s while trying to connect to (m-0, 23456).",
     ["m-0:23456", "900 s"]),
]  # fmt: skip


@pytest.mark.parametrize(("line", "parts"), DESCRIPTIONS)
def test_the_fact_is_said_with_what_the_line_said(line, parts):
    fact = parse(line)
    assert fact is not None
    for part in parts:
        assert part in fact.describe()


def test_rank_prefixes():
    assert line_rank("[rank12]:Traceback (most recent call last):") == 12
    assert line_rank("[Rank 0] Watchdog caught") == 0
    assert line_rank("Traceback (most recent call last):") is None
