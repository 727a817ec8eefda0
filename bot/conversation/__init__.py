"""The platform-neutral conversation engine shared by the console, Slack and Teams."""

from bot.conversation.access import Access, Gate, Identify, console_identity
from bot.conversation.engine import ConversationEngine, Responder
from bot.conversation.model import (
    PUBLISH,
    RERUN,
    SHOW_EVIDENCE,
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
)
from bot.conversation.store import MemoryStore, RedisStore, StateStore, StoreUnavailable
from bot.conversation.understand.markup import Markup

__all__ = [
    "PUBLISH",
    "RERUN",
    "SHOW_EVIDENCE",
    "Access",
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
]
