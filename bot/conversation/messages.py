"""The words the bot says that are not a report: help, progress, and actionable errors."""

from __future__ import annotations

from bot.conversation.model import PUBLISH, Choice, Slots, report_choice
from bot.conversation.parse_bounds import MAX_PARSED_CHARS
from bot.render.actions import report_target
from diagnosis import (
    AuthError,
    NotFound,
    Report,
    UpstreamError,
    UpstreamTimeout,
    UpstreamUnavailable,
)

__all__ = [
    "ALREADY_ANSWERED",
    "BUSY",
    "CRASHED",
    "FOLLOW_UP_HINT",
    "GAVE_UP",
    "HELP",
    "LOST_CONTEXT",
    "NOTHING_TO_SHOW",
    "NOT_IN_THREAD",
    "PICK_BELOW",
    "PRIVATE_QUESTION",
    "PUBLISH_CHOICE",
    "PUBLISH_QUESTION",
    "QUEUE_FULL",
    "STORE_BUSY",
    "STORE_BUSY_RETRYING",
    "STORE_DOWN",
    "STORE_RETRYING",
    "capped",
    "carried_note",
    "describe_upstream",
    "expired",
    "follow_up_hint",
    "help_text",
    "not_read",
    "not_understood",
    "only_asker",
    "publish_choice",
    "queued",
    "unchanged",
    "working_text",
]

STORE_DOWN = (
    "I cannot reach my state store (Redis), so I did not process this request and lost "
    "nothing. Please try again in a minute; if it persists, tell the bot's operators."
)
STORE_BUSY = (
    "I am handling too many requests at once right now, so I did not process this one and "
    "lost nothing. Please try again in a minute."
)
BUSY = "I am still answering an earlier request in this thread; ask again once it has answered."
CRASHED = "Something went wrong on my side while answering; the operators have the details."

STATE_NOT_SAVED = (
    "I answered above, but my state store (Redis) failed right after, so I may not remember "
    "this thread. For a follow-up, mention me with the whole question."
)
LOST_CONTEXT = "I lost the context of this thread; mention me with the whole question."
FOLLOW_UP_HINT = (
    "In this thread I understand `show logs`, `what about the last 7 days?` and `check again`; "
    "to ask about something else, mention me with the whole question."
)
_FOLLOW_UP_CONSOLE = (
    "In this thread I understand `show logs`, `what about the last 7 days?`, `check again` "
    "and corrections (`actually it's on prod-b`); to ask about something else, type the "
    "whole question, or `/new` first."
)


def follow_up_hint(platform: str) -> str:
    """What a thread reply can ask, in the platform's words (the console cannot mention)."""
    return _FOLLOW_UP_CONSOLE if platform == "console" else FOLLOW_UP_HINT


#: Offered privately after an answer shown only to the asker (a project not public here).
PUBLISH_QUESTION = (
    "I answered you privately: this channel discusses only some projects publicly, and "
    "this answer is about another one. Post it to the thread anyway?"
)
PUBLISH_CHOICE = Choice(label="Post it to the thread", value=PUBLISH)


def publish_choice(report: Report, lookback: str | None) -> Choice:
    """`PUBLISH_CHOICE` for the answer `report`: its button posts that answer, not a later one."""
    value = report_choice(PUBLISH, report_target(report, lookback))
    return Choice(label=PUBLISH_CHOICE.label, value=value)


#: After a question whose buttons name the candidates (their IDs only where names tie).
PICK_BELOW = "Pick one below."
ALREADY_ANSWERED = "That question was already answered; mention me to ask again."
NOTHING_TO_SHOW = "There is no answer in this thread yet to show the evidence of."
NOT_IN_THREAD = (
    "I no longer have the answer that button is on (a thread keeps its latest answers); "
    "mention me with the whole question to check it again."
)
PRIVATE_QUESTION = (
    "The question in this thread was asked privately, so only the person who asked can "
    "answer it; to ask about something else, mention me with the whole question."
)

HELP = """\
I explain why a Run:ai workload failed (or is stuck Pending, or was preempted): the category \
first, then cited evidence, how often it happened recently, and what to do next. I only read; \
I never change a workload.

Ask me in plain words, or with key=value pairs:
• `/runai-why why did training-job-42 in ml-team fail on cluster prod-a?`
• `/runai-why cluster=prod-a workload=train-bert project=nlp lookback=7d`
• `/runai-why cluster=prod-a id=<workload UUID>`
• `@runai-why is train-bert in nlp crashlooping?` (a current symptom: stuck, crash loop, \
image pull, init, mount, startup)
• a Run:ai link, a pasted alert (`namespace=runai-nlp pod=…`), or a `kubectl`/`runai` line

I always need the cluster, and either the workload ID or its name and project. If something \
is missing I ask in the thread (the person who asked answers there; anyone else mentions me); \
I never guess.

After an answer, reply in its thread with `show logs` (all the evidence), `what about the last \
7 days?`, `check again`, or a correction such as `actually it's on prod-b`.

`/runai-why watch nlp on prod-a` posts every new failure in project nlp to this channel, for \
everyone in it (`unwatch nlp on prod-a`; `watches` lists them)."""

_TEAMS_HELP = """\
I explain why a Run:ai workload failed (or is stuck Pending, or was preempted): the category \
first, then cited evidence, how often it happened recently, and what to do next. I only read; \
I never change a workload.

Mention me and ask in plain words, or paste what you have:
• `@runai-why why did training-job-42 in ml-team fail on prod-a?`
• `@runai-why cluster=prod-a workload=train-bert project=nlp lookback=7d`
• `@runai-why` with a Run:ai link, a pasted alert (`namespace=runai-nlp pod=…`), or a \
`kubectl -n runai-nlp … pod/…` / `runai … describe train-bert -p nlp` line
• `@runai-why is train-bert in nlp stuck?` (a current symptom: stuck, crash loop, image \
pull, init, mount, startup)

I always need the cluster, and either the workload ID or its name and project. If something \
is missing I ask in the thread; I never guess. In a 1:1 chat with me, no mention is needed.

After an answer, reply in its thread with `show logs`, `what about the last 7 days?`, \
`check again`, or a correction such as `actually it's on prod-b`.

`@runai-why watch nlp on prod-a` posts every new failure in project nlp to this channel, for \
everyone in it (`unwatch nlp on prod-a`; `watches` lists them)."""


def help_text(platform: str) -> str:
    """The help for the platform in use: Teams has no `/runai-why` command."""
    return _TEAMS_HELP if platform == "teams" else HELP


_ADVICE: dict[type[UpstreamError], tuple[str, str]] = {
    AuthError: (
        "refused my credentials",
        "An admin should check RUNAI_CLIENT_ID/RUNAI_CLIENT_SECRET and the service account's "
        "read access to this project.",
    ),
    NotFound: ("does not know that resource", "Check the ID and the cluster."),
    UpstreamTimeout: ("did not answer in time", "Try again in a minute."),
    UpstreamUnavailable: (
        "could not be reached or kept failing",
        "Try again in a minute; if it persists, check the control plane's status.",
    ),
}


def describe_upstream(error: UpstreamError, doing: str) -> str:
    """A short, specific message for a failed upstream call: which call, what to try."""
    what, advice = next(
        (v for k, v in _ADVICE.items() if isinstance(error, k)),
        ("answered with an error", "Try again; if it persists, tell the bot's operators."),
    )
    status = f", HTTP {error.status}" if error.status is not None else ""
    return (
        f"I could not {doing}: the Run:ai control plane {what} "
        f"(during `{error.operation}`{status}). {advice}"
    )


def working_text(slots: Slots) -> str:
    """The progress notice that the report will replace."""
    target = slots.workload_name or slots.workload_id or "the workload"
    project = f" in {slots.project}" if slots.project and slots.workload_name else ""
    cluster = f" on {slots.cluster_label or slots.cluster_id}"
    return f"Diagnosing {target}{project}{cluster}…"


def only_asker(asker: str) -> str:
    """The private refusal of a click from someone other than the asker."""
    return f"Only {asker} can pick here; anyone else can answer by mentioning me."


def not_understood(question: str, *, choices: int) -> str:
    """The question asked again after a reply that matched none of its answers."""
    pick = {0: "", 1: " Click the button or reply `1`."}.get(
        choices, f" Click a button or reply with a number from 1 to {choices}."
    )
    return f"I could not read that as an answer. {question}{pick}"


def not_read(ignored: int) -> str:
    """Told privately when a message was longer than the parser reads (`parse_bounds`)."""
    return (
        f"That message is long, so I read only its first {MAX_PARSED_CHARS:,} characters and "
        f"ignored the other {ignored:,}. If the workload, project or cluster came after that, "
        "ask again with them near the start."
    )


def unchanged(label: str, lookback: str) -> str:
    """Said instead of re-posting a report that has not changed."""
    return f"Checked again: nothing changed since the answer above ({label}, lookback {lookback})."


def carried_note(carried: list[str]) -> str:
    """Names the values that came from earlier in the thread, e.g. `project ml-team`."""
    listed = carried[0] if len(carried) == 1 else ", ".join(carried[:-1]) + " and " + carried[-1]
    return f"{listed[0].upper()}{listed[1:]}, from earlier in this thread."


# ---------------------------------------------------------------- the durable work queue

QUEUE_FULL = (
    "I am answering as many requests as I can hold right now, so I did not take this one "
    "and lost nothing. Please ask again in a few minutes."
)
STORE_BUSY_RETRYING = (
    "I am handling too many requests at once right now, so I have not taken your message "
    "yet. Slack will send it to me again within a few minutes and I will answer it then; if "
    "no answer comes, ask again later."
)
STORE_RETRYING = (
    "I cannot reach my state store (Redis) right now, so I have not taken your message yet. "
    "Slack will send it to me again within a few minutes and I will answer it then; if no "
    "answer comes, ask again later."
)
GAVE_UP = (
    "I tried to answer this request several times and failed each time, so I stopped. "
    "The operators have the details; please ask again."
)


def capped(held: int) -> str:
    """Told privately when the asker already has as many requests in the queue as one may."""
    many = "request" if held == 1 else "requests"
    return (
        f"You already have {held} {many} waiting or being answered, as many as I take from "
        "one person at a time, so I did not take this one and lost nothing. Please ask again "
        "once one of them is answered."
    )


def queued(ahead: int) -> str:
    """Told privately when a request has to wait: its place in the queue."""
    many = "request is" if ahead == 1 else "requests are"
    return f"I am busy: {ahead} {many} ahead of yours. I will answer here when I get to it."


def expired(waited_s: float) -> str:
    """Told when a request waited past its deadline and was not started."""
    minutes = max(1, round(waited_s / 60))
    return (
        f"I was too busy to start on this request within {minutes} minute"
        f"{'s' if minutes != 1 else ''}, so I dropped it. Please ask again."
    )
