"""The platform-neutral conversation engine shared by the console, Slack and (later) Teams."""

from bot.conversation.engine import ConversationEngine, Responder
from bot.conversation.model import (
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

__all__ = [
    "RERUN",
    "SHOW_EVIDENCE",
    "Choice",
    "ConversationEngine",
    "ConversationState",
    "EvidenceReply",
    "Incoming",
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
]
