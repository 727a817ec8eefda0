"""The durable work queue: requests survive crashes and redeploys until they are answered."""

from bot.work.admit import admit
from bot.work.attempt import Handler
from bot.work.item import PUSHED_PLATFORM, Delivery, Enqueued, Intake, WorkItem, new_item
from bot.work.journal import JournaledResponder
from bot.work.memory_queue import MemoryWorkQueue
from bot.work.queue import Journal, JournalState, QueueUnavailable, ShownPost, WorkQueue
from bot.work.redis_queue import RedisWorkQueue
from bot.work.worker import Worker

__all__ = [
    "PUSHED_PLATFORM",
    "Delivery",
    "Enqueued",
    "Handler",
    "Intake",
    "Journal",
    "JournalState",
    "JournaledResponder",
    "MemoryWorkQueue",
    "QueueUnavailable",
    "RedisWorkQueue",
    "ShownPost",
    "WorkItem",
    "WorkQueue",
    "Worker",
    "admit",
    "new_item",
]
