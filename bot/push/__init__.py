"""Answers nobody asked for: what a watch or an alert found, diagnosed and posted once."""

from bot.push.alert_answers import AlertResolver
from bot.push.handler import PushWork
from bot.push.item import (
    PENDING,
    PLATFORM,
    AlertSpec,
    NoticeSpec,
    Pending,
    PushSpec,
    Target,
    alert_item,
    notice_item,
    push_item,
    subscriber_identity,
)
from bot.push.kv import Kv, KvUnavailable, MemoryKv, RedisKv
from bot.push.plan import Planner
from bot.push.posters import ConsolePoster, OnPosted, Poster, Posters
from bot.push.subscriber import subscriber_decision

__all__ = [
    "PENDING",
    "PLATFORM",
    "AlertResolver",
    "AlertSpec",
    "ConsolePoster",
    "Kv",
    "KvUnavailable",
    "MemoryKv",
    "NoticeSpec",
    "OnPosted",
    "Pending",
    "Planner",
    "Poster",
    "Posters",
    "PushSpec",
    "PushWork",
    "RedisKv",
    "Target",
    "alert_item",
    "notice_item",
    "push_item",
    "subscriber_decision",
    "subscriber_identity",
]
