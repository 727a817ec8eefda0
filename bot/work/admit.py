"""Enqueue one front end's work item, and count what became of it (duplicate, refused, taken)."""

from __future__ import annotations

import structlog

from bot.ops.metrics import DUPLICATES_DROPPED, QUEUE_DEPTH, QUEUE_REJECTED
from bot.work.item import Enqueued, Intake, WorkItem
from bot.work.queue import WorkQueue

__all__ = ["admit"]


async def admit(
    queue: WorkQueue, item: WorkItem, *, dedupe: str, dedupe_ttl_s: int, repeatable: bool = False
) -> Enqueued:
    """Enqueue `item` under `dedupe` (one atomic step), then record it in metrics and logs.

    `repeatable`: its asker can send this very request again (a button click, under the same
    key), so when a worker tells them to ask again the key is forgotten with the item. A
    message's key is never forgotten: the platform's own redelivery of it would run again.

    Raises:
        QueueUnavailable: nothing was taken (Redis is down).
    """
    if repeatable:
        item = item.model_copy(update={"dedupe": dedupe})
    result = await queue.enqueue(item, dedupe=dedupe, dedupe_ttl_s=dedupe_ttl_s)
    log = structlog.get_logger(__name__)
    if result.intake is Intake.DUPLICATE:
        DUPLICATES_DROPPED.labels(platform=item.platform).inc()
        log.info("work_duplicate_ignored", platform=item.platform, dedupe=dedupe)
    elif result.intake is Intake.FULL:
        QUEUE_REJECTED.labels(lane=_lane(item), reason="full").inc()
        log.warning("work_queue_full", platform=item.platform, depth=result.depth)
    elif result.intake is Intake.CAPPED:
        QUEUE_REJECTED.labels(lane=_lane(item), reason="capped").inc()
        log.warning("work_asker_capped", platform=item.platform, held=result.held)
    else:
        QUEUE_DEPTH.set(result.depth + 1)
        log.debug("work_enqueued", kind=item.kind, work_id=item.id, ahead=result.ahead)
    return result


def _lane(item: WorkItem) -> str:
    return "push" if item.pushed else "ask"
