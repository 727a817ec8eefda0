"""NCCL and rendezvous log lines as facts: which rank, which operation, what timed out, who.

A distributed job's ranks log their view of a collective that went wrong: PyTorch's NCCL
watchdog (`WorkNCCL(SeqNum=…, OpType=…, Timeout(ms)=…) ran for … milliseconds`), the TCP
store waiting for ranks to join (`3/4 clients joined`), a socket that never reached the
rendezvous endpoint, a monitored barrier some ranks never passed, an NCCL transport whose
peer closed the connection. `parse` reads one line into a `CollectiveFact` and says only
what the line says; a field it does not state is None. The wordings and their sources are
in docs/failure-taxonomy.md ("NCCL and rendezvous lines").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["CollectiveFact", "line_rank", "parse"]

#: `[rank3]:` (PyTorch's per-rank prefix) or `[Rank 3]` (ProcessGroupNCCL's own).
_RANK = re.compile(r"\[[Rr]ank ?(\d{1,6})\]")

_WATCHDOG = re.compile(
    r"Watchdog caught collective operation timeout: WorkNCCL\(SeqNum=(?P<seq>\d+), "
    r"OpType=(?P<op>\w+)[^)]*?Timeout\(ms\)=(?P<timeout>\d+)\)"
    r"(?: ran for (?P<ran>\d+) milliseconds)?"
)
_TIMEOUT_AT = re.compile(
    r"Timeout at NCCL work: (?P<seq>\d+), last enqueued NCCL work: \d+, "
    r"last completed NCCL work: (?P<done>-?\d+)"
)
_STORE = re.compile(
    r"Timed out after (?P<secs>\d+) seconds waiting for clients\. "
    r"(?P<joined>\d+)/(?P<total>\d+) clients joined"
)
_SOCKET = re.compile(
    r"client socket has timed out after (?P<secs>\d+)s? while trying to connect to "
    r"\((?P<host>[^,()\s]+), (?P<port>\d+)\)"
)
_BARRIER = re.compile(
    r"Ranks? (?P<ranks>\d+(?:, ?\d+)*) failed to pass monitoredBarrier in (?P<ms>\d+) ms"
)
_PEER_CLOSED = re.compile(
    r"Connection closed by remote peer (?P<peer>[\w.:-]+)(?:<(?P<port>\d+)>)?"
    r"|Got completion from peer (?P<ib>[\w.:-]+)(?:<(?P<ibport>\d+)>)? with (?:error|status=?) ?\d+"
)
_RENDEZVOUS = re.compile(
    r"\bRendezvousTimeoutError\b|\brendezvous\b.*\btimed? ?out\b", re.IGNORECASE
)


@dataclass(frozen=True)
class CollectiveFact:
    """What one NCCL or rendezvous line says, field by field; None where it says nothing.

    Attributes:
        kind: `watchdog-timeout`, `stuck-collective`, `rendezvous-timeout`, `connect-timeout`,
            `barrier-timeout` or `peer-closed`.
        rank: the rank that logged it (its `[rankN]`/`[Rank N]` prefix).
        operation, sequence: the collective (`ALLREDUCE`) and its sequence number.
        timeout_ms: the configured timeout; `ran_ms`: how long the operation ran.
        peer: the rank(s) or host that never joined, never answered or closed.
        joined, expected: how many ranks joined a rendezvous, of how many.
    """

    kind: str
    rank: int | None = None
    operation: str | None = None
    sequence: int | None = None
    timeout_ms: int | None = None
    ran_ms: int | None = None
    peer: str | None = None
    joined: int | None = None
    expected: int | None = None

    def describe(self) -> str:
        """One short sentence of the fact, with only what the line said."""
        who = f"rank {self.rank}" if self.rank is not None else "a rank"
        limit = f" (timeout {_seconds(self.timeout_ms)})" if self.timeout_ms is not None else ""
        if self.kind == "watchdog-timeout":
            ran = f" after {_seconds(self.ran_ms)}" if self.ran_ms is not None else ""
            return (
                f"NCCL watchdog on {who}: {self.operation} #{self.sequence} timed out{ran}"
                f"{limit}; another rank stopped taking part in it first"
            )
        if self.kind == "stuck-collective":
            return f"NCCL on {who}: collective #{self.sequence} never completed"
        if self.kind == "rendezvous-timeout":
            if self.joined is not None and self.expected is not None:
                missing = self.expected - self.joined
                return (
                    f"Rendezvous timed out{limit}: {self.joined} of {self.expected} ranks "
                    f"joined, {missing} never did"
                )
            return f"Rendezvous timed out on {who}: not every rank joined"
        if self.kind == "connect-timeout":
            return f"{who.capitalize()} could not reach the rendezvous at {self.peer}{limit}"
        if self.kind == "barrier-timeout":
            return f"Rank(s) {self.peer} never reached the barrier{limit}"
        return f"NCCL on {who}: the connection to peer {self.peer} was closed or failed"


def _seconds(ms: int | None) -> str:
    if ms is None:
        return "?"
    return f"{ms / 1000:g} s"


def line_rank(line: str) -> int | None:
    """The rank a line's prefix names (`[rank3]:`, `[Rank 3]`), or None."""
    found = _RANK.search(line)
    return int(found.group(1)) if found else None


def parse(line: str) -> CollectiveFact | None:
    """The collective fact one log line states, or None when it is not such a line."""
    rank = line_rank(line)
    if m := _WATCHDOG.search(line):
        ran = m.group("ran")
        return CollectiveFact(
            "watchdog-timeout",
            rank=rank,
            operation=m.group("op"),
            sequence=int(m.group("seq")),
            timeout_ms=int(m.group("timeout")),
            ran_ms=int(ran) if ran else None,
        )
    if m := _TIMEOUT_AT.search(line):
        return CollectiveFact("stuck-collective", rank=rank, sequence=int(m.group("seq")))
    if m := _STORE.search(line):
        return CollectiveFact(
            "rendezvous-timeout",
            rank=rank,
            timeout_ms=int(m.group("secs")) * 1000,
            joined=int(m.group("joined")),
            expected=int(m.group("total")),
        )
    if m := _SOCKET.search(line):
        return CollectiveFact(
            "connect-timeout",
            rank=rank,
            timeout_ms=int(m.group("secs")) * 1000,
            peer=f"{m.group('host')}:{m.group('port')}",
        )
    if m := _BARRIER.search(line):
        peers = ", ".join(p.strip() for p in m.group("ranks").split(","))
        return CollectiveFact(
            "barrier-timeout", rank=rank, timeout_ms=int(m.group("ms")), peer=peers
        )
    if m := _PEER_CLOSED.search(line):
        host = m.group("peer") or m.group("ib")
        port = m.group("port") or m.group("ibport")
        return CollectiveFact("peer-closed", rank=rank, peer=f"{host}:{port}" if port else host)
    if _RENDEZVOUS.search(line):
        return CollectiveFact("rendezvous-timeout", rank=rank)
    return None
