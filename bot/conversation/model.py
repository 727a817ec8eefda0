"""Platform-neutral conversation types: what came in, what the bot says, what it remembers."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime

from pydantic import BaseModel, ConfigDict

from bot.conversation.parse import Expecting
from bot.conversation.understand.markup import Markup
from diagnosis import Report, Symptom, WorkloadRef

__all__ = [
    "PUBLISH",
    "REPORT_ACTIONS",
    "RERUN",
    "SHOW_EVIDENCE",
    "Answer",
    "Choice",
    "ConversationState",
    "EvidenceReply",
    "Incoming",
    "Notice",
    "Question",
    "Reply",
    "ReportReply",
    "Slots",
    "ThreadKey",
    "report_action",
    "report_choice",
]

#: Choice values of the report's action buttons; a front end sends them as `Incoming.choice`.
SHOW_EVIDENCE = "report:evidence"
RERUN = "report:rerun"
#: The value of the button that posts a privately shown answer (channel policy) to the thread.
PUBLISH = "report:publish"
#: The choices of the buttons on an answer, which act on the answer they are on.
REPORT_ACTIONS = frozenset({SHOW_EVIDENCE, RERUN, PUBLISH})
#: The `thread` of `ThreadKey.new_root`; no platform names a thread so.
NEW_ROOT = "+new-root"


def report_choice(action: str, target: str | None) -> str:
    """The choice a button on an answer sends: its action, then the answer it is on.

    `target` is the answer's `bot.render.actions.ActionTarget` value (its workload and
    cluster IDs); None leaves the action alone, as buttons posted before targets were.
    """
    return f"{action} {target}" if target else action


def report_action(choice: str) -> tuple[str, str | None]:
    """A choice split into a report button's action and the target it carries.

    `(choice, None)` for a choice that is not a report button's, or one from a button
    posted without a target (it acts on the thread's last answer, as it always did).
    """
    action, _, target = choice.partition(" ")
    if action not in REPORT_ACTIONS:
        return choice, None
    return action, target or None


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

    def new_root(self) -> ThreadKey:
        """The channel's key for its lock while a thread is started with buttons on its root.

        A new thread's key is its root's ID, known only once posted: whoever posts one
        unasked (a pushed answer) holds this lock from before the post until the new
        thread's state is saved, and a click that finds no state waits for it.
        """
        return replace(self, thread=NEW_ROOT)


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
        bot_thread: the front end knows the bot took part in this thread (it posted there).
            A plain reply in such a thread whose state is gone (expired, or Redis lost it)
            is told so instead of being ignored.
        message_ref: for a click, the message the button was on; the engine replaces that
            message's buttons with the choice (`Responder.update`).
        markup: how the platform wrote `text` (Slack mrkdwn, Teams, plain); the engine
            reads every platform's text with the same pipeline after this one step.
    """

    key: ThreadKey
    user: str
    text: str = ""
    choice: str | None = None
    directed: bool = True
    bot_thread: bool = False
    message_ref: str | None = None
    markup: Markup = Markup.PLAIN


@dataclass(frozen=True)
class Choice:
    """A button: what it says and the value it sends back."""

    label: str
    value: str


@dataclass(frozen=True)
class Notice:
    """A short message: help, "Diagnosing …", or an error a person can act on.

    Every reply has `private`: True means only the person who wrote the incoming message
    sees it (Slack: ephemeral; the console marks it). Help, hints, "I could not use part of
    that" and errors about the asker's own input are private; answers are public.
    `progress` marks the "Diagnosing …" placeholder that the answer will replace, so a
    front end can show progress its own way while it stands.
    """

    text: str
    private: bool = False
    progress: bool = False


@dataclass(frozen=True)
class Question:
    """A question in the thread, optionally with buttons to answer it.

    `asker` is who may answer it with a plain reply or a click (anyone may by mentioning the
    bot). `picked` is set on the reply that replaces a question once a button was chosen:
    the text then says what was picked and `choices` is empty, so nothing can be pressed
    again.
    """

    text: str
    choices: tuple[Choice, ...] = ()
    private: bool = False
    asker: str | None = None
    picked: Choice | None = None


@dataclass(frozen=True)
class ReportReply:
    """A finished diagnosis, with notes on how the request was completed.

    `cluster_name` is the cluster's name from the control plane's list, when known.
    """

    report: Report
    lookback: str
    notes: tuple[str, ...] = field(default=())
    private: bool = False
    cluster_name: str | None = None


@dataclass(frozen=True)
class EvidenceReply:
    """Everything behind a report, posted in its thread: every evidence line and every gap.

    The answer to "show logs", "more", "all evidence" and the report's "Show all evidence"
    button; a renderer shows `bot.render.plan.everything` (every fact, change and gap), not
    the answer's few lines.
    """

    report: Report
    lookback: str
    private: bool = False


Reply = Notice | Question | ReportReply | EvidenceReply


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
    pod: str | None = None  # a pod named without its workload, resolved through its pods
    # `on prod-a or prod-b`, `ml-team or nlp`: the values named for an empty slot, offered
    # as the question's buttons (never one picked for the asker)
    cluster_choices: tuple[str, ...] = ()
    project_choices: tuple[str, ...] = ()


class Answer(BaseModel):
    """An answer shown in a thread, kept so that the buttons on it act on it.

    `slots` are those it was diagnosed with, `report_for` whose access it was computed with
    (empty: no one's), `private` whether only its asker saw it (channel policy),
    `answered_at` when it was shown (None: kept before that was).
    """

    model_config = ConfigDict(frozen=True)

    report: Report
    slots: Slots
    lookback: str | None = None
    report_for: str = ""
    private: bool = False
    answered_at: datetime | None = None


class ConversationState(BaseModel):
    """What the bot remembers about a thread between turns (stored as JSON with a TTL)."""

    model_config = ConfigDict(frozen=True)

    slots: Slots = Slots()
    expecting: Expecting | None = None
    candidates: tuple[WorkloadRef, ...] = ()
    notes: tuple[str, ...] = ()
    started_by: str = ""
    updated_at: datetime | None = None
    asker: str = ""  # who asked the question the bot is working on (answers with plain replies)
    question: str | None = None  # the pending question, asked again when a reply fits nothing
    choices: tuple[Choice, ...] = ()  # its buttons (a typed number picks one)
    question_ref: str | None = None  # the message that asked it, to replace its buttons
    question_private: bool = False  # it was shown only to the asker: no one else may answer it
    last_report: Report | None = None  # the last answer, for "show logs" and "what about 7d?"
    # Whose access `last_report` was computed with (the user of the turn that diagnosed it;
    # empty: no one's, e.g. a pushed answer or a state saved before this was kept). Anyone
    # else, the thread's later `asker` included, sees it only through `diagnosis.for_viewer`.
    report_for: str = ""
    last_lookback: str | None = None
    answer_private: bool = False  # the last answer was shown only to its asker (channel policy)
    # The slots `last_report` was diagnosed with (None: a state saved before they were kept).
    answer_slots: Slots | None = None
    answered_at: datetime | None = None  # when `last_report` was shown (None: before it was kept)
    # The thread's earlier answers, oldest first, one per workload and a bounded number
    # (`bot.conversation.answers`): the buttons on each act on it, not on `last_report`.
    earlier: tuple[Answer, ...] = ()
    queued: tuple[str, ...] = ()  # more workloads the same message named, answered after this one
