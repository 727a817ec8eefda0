"""GPU Xid errors, by what they mean for the person whose workload failed: node or application.

The NVIDIA driver reports GPU faults as numbered Xid events (`NVRM: Xid (PCI:0000:3b:00): 79,
pid=…, GPU has fallen off the bus.`). Some point to the GPU or the node (memory faults, a GPU
lost from the bus, NVLink or firmware failures): SRE drains the node, the code is not at
fault. Others usually point to the application's own GPU work (an illegal address, an
exception in a kernel): the user debugs the code. `XIDS` is the one table, with NVIDIA's Xid
catalog as its source (docs/failure-taxonomy.md, "GPU Xid errors"). An Xid is cited
evidence; it never decides a category by itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

__all__ = ["XIDS", "Xid", "XidPoints", "xid_in"]


class XidPoints(StrEnum):
    """Where an Xid usually points."""

    NODE = "node"
    APPLICATION = "application"


#: code → (what it means, where it points). Unlisted codes point to the node: the bot does not
#: blame the code for a fault it cannot read.
XIDS: dict[int, tuple[str, XidPoints]] = {
    13: ("graphics engine exception (an illegal instruction or out-of-range access in a "
         "kernel)", XidPoints.APPLICATION),
    31: ("GPU memory page fault (the program touched an address it does not own)",
         XidPoints.APPLICATION),
    43: ("GPU stopped processing the program's work (a fault in the application's GPU work)",
         XidPoints.APPLICATION),
    45: ("preemptive cleanup after earlier errors (the process was ended)",
         XidPoints.APPLICATION),
    48: ("double-bit ECC error in GPU memory", XidPoints.NODE),
    61: ("internal micro-controller breakpoint or warning", XidPoints.NODE),
    62: ("internal micro-controller halt", XidPoints.NODE),
    63: ("ECC page retirement or row remapping recorded (reset the GPU to apply it)",
         XidPoints.NODE),
    64: ("ECC page retirement or row remapping failed", XidPoints.NODE),
    74: ("NVLink error", XidPoints.NODE),
    79: ("GPU has fallen off the bus", XidPoints.NODE),
    92: ("high single-bit ECC error rate", XidPoints.NODE),
    94: ("contained ECC error (the application using the memory was stopped; reset the GPU)",
         XidPoints.NODE),
    95: ("uncontained ECC error (every application on the GPU is affected; reset the GPU)",
         XidPoints.NODE),
    119: ("GSP firmware RPC timeout", XidPoints.NODE),
    120: ("GSP firmware error", XidPoints.NODE),
    140: ("unrecovered ECC error", XidPoints.NODE),
}  # fmt: skip

#: `NVRM: Xid (PCI:0000:3b:00): 79, pid=…`, `Xid 79`, `XID=48`, `xid: 94`.
_XID = re.compile(r"\bXid\b(?:\s*\((?:PCI:)?[0-9a-f:.]*\))?\s*[:=]?\s*(\d{1,3})\b", re.IGNORECASE)


@dataclass(frozen=True)
class Xid:
    """One Xid a text reports: its code, its meaning and where it points."""

    code: int
    meaning: str
    points: XidPoints

    def describe(self) -> str:
        """`Xid 79: GPU has fallen off the bus; it points to the node's GPU, not the code`."""
        where = (
            "it points to the node's GPU, not the code"
            if self.points is XidPoints.NODE
            else "it usually points to the application's own GPU work"
        )
        return f"Xid {self.code}: {self.meaning}; {where}"


def xid_in(text: str) -> Xid | None:
    """The Xid a text reports, read from NVIDIA's table; None when it names none."""
    found = _XID.search(text)
    if found is None:
        return None
    code = int(found.group(1))
    meaning, points = XIDS.get(
        code, ("not in the table (see NVIDIA's Xid catalog)", XidPoints.NODE)
    )
    return Xid(code, meaning, points)
