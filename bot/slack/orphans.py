"""Finds again the posts a killed attempt made but never journaled, by the item ID they carry.

Between Slack taking a post and the journal recording its `ts` there is a window (the HTTP
round trip, then one Redis write) in which a killed worker leaves a message nobody knows:
a "Diagnosing …" placeholder would spin for ever. Every public post of a queued item
therefore carries the item's ID in its message metadata; an attempt after the first looks
in the thread it knows (`conversations.replies`), or, for a slash command whose first post
would have started the thread, among the channel's newest messages (`conversations.history`;
a reclaim comes within a minute of the crash), and adopts what it finds as the next
journaled posts.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, Final

import structlog
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.conversation.store import StoreUnavailable
from bot.work import Journal, JournalState, ShownPost, WorkItem

if TYPE_CHECKING:
    from bot.slack.intake import ResponderSpec

__all__ = ["EVENT_TYPE", "adopt", "tag"]

#: The metadata event type of a queued item's public posts.
EVENT_TYPE: Final = "runai_why_item"
#: How many messages one look reads (a killed attempt's posts are among the newest).
_LIMIT: Final = 200


def tag(item_id: str, *, progress: bool) -> dict[str, Any]:
    """The message metadata of an item's public post (`progress`: the placeholder)."""
    return {"event_type": EVENT_TYPE, "event_payload": {"item": item_id, "progress": progress}}


def _ours(message: dict[str, Any], item_id: str) -> bool | None:
    """Whether `message` is the item's placeholder (None: not one of the item's posts)."""
    metadata = message.get("metadata") or {}
    payload = metadata.get("event_payload") or {}
    if metadata.get("event_type") != EVENT_TYPE or payload.get("item") != item_id:
        return None
    return bool(payload.get("progress"))


async def adopt(
    client: AsyncWebClient,
    item: WorkItem,
    spec: ResponderSpec,
    journal: Journal | None,
    state: JournalState,
) -> JournalState:
    """`state` plus the item's posts that Slack holds and the journal does not; never raises.

    They are journaled (unless `journal` is None) in the order Slack numbered them, after
    the known ones; a slash command's first such post is the thread the earlier attempt
    started.
    """
    log = structlog.get_logger(__name__)
    thread = spec.thread_ts or state.thread
    try:
        if thread is not None:
            found = await client.conversations_replies(
                channel=spec.channel, ts=thread, include_all_metadata=True, limit=_LIMIT
            )
        else:
            found = await client.conversations_history(
                channel=spec.channel, include_all_metadata=True, limit=_LIMIT
            )
    except (SlackApiError, OSError, ValueError) as error:
        log.warning("slack_orphans_unread", error=str(error))
        return state
    known = {post.ref for post in state.posts}
    orphans = sorted(
        (
            (str(m["ts"]), progress)
            for m in found.get("messages") or []
            if (progress := _ours(m, item.id)) is not None and str(m.get("ts")) not in known
        ),
        key=lambda found_post: float(found_post[0]),
    )
    if not orphans:
        return state
    if thread is None and spec.threaded:
        thread = orphans[0][0]
    posts = [ShownPost(ts, progress=progress) for ts, progress in orphans]
    log.info("slack_orphans_adopted", count=len(posts), progress=sum(p.progress for p in posts))
    try:
        for index, post in enumerate(posts, start=len(state.posts)):
            if journal is not None:
                await journal.record_post(index, post, thread if spec.thread_ts is None else None)
    except StoreUnavailable as error:
        log.warning("work_journal_failed", step="adopt", error=str(error))
    return replace(state, posts=(*state.posts, *posts), thread=thread)
