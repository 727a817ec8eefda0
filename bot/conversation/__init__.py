"""The platform-neutral conversation engine shared by the console, Slack and Teams."""

from bot.conversation.access import Access, Gate, Identify, console_identity
from bot.conversation.engine import ConversationEngine, Responder
from bot.conversation.model import (
    PUBLISH,
    REPORT_ACTIONS,
    RERUN,
    SHOW_EVIDENCE,
    Answer,
    Choice,
    ConversationState,
    EvidenceReply,
    Incoming,
    Notice,
    Question,
    Reply,
    ReportReply,
    Slots,
    ThreadKey,
    report_action,
    report_choice,
)
from bot.conversation.store import MemoryStore, RedisStore, StateStore, StoreUnavailable
from bot.conversation.understand.markup import Markup

__all__ = [
    "PUBLISH",
    "REPORT_ACTIONS",
    "RERUN",
    "SHOW_EVIDENCE",
    "Access",
    "Answer",
    "Choice",
    "ConversationEngine",
    "ConversationState",
    "EvidenceReply",
    "Gate",
    "Identify",
    "Incoming",
    "Markup",
    "MemoryStore",
    "Notice",
    "Question",
    "RedisStore",
    "Reply",
    "ReportReply",
    "Responder",
    "Slots",
    "StateStore",
    "StoreUnavailable",
    "ThreadKey",
    "console_identity",
    "report_action",
    "report_choice",
]
