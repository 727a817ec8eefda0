"""Platform-neutral conversation types: what came in, what the bot says, what it remembers."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from pydantic import BaseModel, ConfigDict

from bot.parse import Expecting
from diagnosis import Report, Symptom, WorkloadRef

__all__ = [
    "Choice",
    "ConversationState",
    "Incoming",
    "Notice",
    "Question",
    "Reply",
    "ReportReply",
    "Slots",
    "ThreadKey",
]


@dataclass(frozen=True)
class ThreadKey:
    """Identifies one conversation: a thread in a channel of a workspace on a platform."""

    platform: str
    team: str
    channel: str
    thread: str

    def redis_key(self, kind: str) -> str:
        """A namespaced key for this thread, e.g. `runai-why:conv:slack:T1:C1:1700.1`."""
        return f"runai-why:{kind}:{self.platform}:{self.team}:{self.channel}:{self.thread}"


@dataclass(frozen=True)
class Incoming:
    """One thing a person did: a command, a mention, a thread reply or a button click.

    Attributes:
        key: the conversation (thread) it belongs to.
        user: the platform's user id.
        text: what they typed (empty for a button click).
        choice: the value of the button they clicked, if any.
        directed: True for a command or a mention (it may start a conversation); False for
            a plain thread reply, which only continues a conversation the bot already owns.
    """

    key: ThreadKey
    user: str
    text: str = ""
    choice: str | None = None
    directed: bool = True


@dataclass(frozen=True)
class Choice:
    """A button: what it says and the value it sends back."""

    label: str
    value: str


@dataclass(frozen=True)
class Notice:
    """A short message: help, "Diagnosing …", or an error a person can act on."""

    text: str


@dataclass(frozen=True)
class Question:
    """A question in the thread, optionally with buttons to answer it."""

    text: str
    choices: tuple[Choice, ...] = ()


@dataclass(frozen=True)
class ReportReply:
    """A finished diagnosis, with notes on how the request was completed.

    `cluster_name` is the cluster's name from the control plane's list, when known.
    """

    report: Report
    lookback: str
    notes: tuple[str, ...] = field(default=())
    cluster_name: str | None = None


Reply = Notice | Question | ReportReply


class Slots(BaseModel):
    """The identifiers gathered so far in a thread."""

    model_config = ConfigDict(frozen=True)

    cluster_id: str | None = None
    cluster_label: str | None = None
    workload_id: str | None = None
    workload_name: str | None = None
    project: str | None = None
    lookback: str | None = None
    symptom: Symptom | None = None


class ConversationState(BaseModel):
    """What the bot remembers about a thread between turns (stored as JSON with a TTL)."""

    model_config = ConfigDict(frozen=True)

    slots: Slots = Slots()
    expecting: Expecting | None = None
    candidates: tuple[WorkloadRef, ...] = ()
    notes: tuple[str, ...] = ()
    started_by: str = ""
    updated_at: datetime | None = None
