"""`/runai-why`: taken into the work queue, then acknowledged; the first reply anchors a thread.

The ack itself tells the asker, privately, what happened when it was not simply taken: their
place in the queue, a full queue, their own cap reached, or Redis down (Slack does not retry
commands). The same invocation sent again (a replay of its signed body) is taken once, by its
`trigger_id`.
"""

from __future__ import annotations

from bot.conversation import Incoming, Markup, ThreadKey
from bot.conversation.edges import not_taken_notice, taken_notice
from bot.slack.deps import SlackDeps
from bot.slack.intake import ResponderSpec, submit, trigger_key
from bot.slack.listeners.routes import Ack, Route, SlackRequest
from bot.work import QueueUnavailable

__all__ = ["COMMAND", "ROUTES", "take_command"]

#: The one slash command the app declares (deploy/slack-app-manifest.yaml).
COMMAND = "/runai-why"


async def take_command(deps: SlackDeps, request: SlackRequest) -> Ack:
    """Take one `/runai-why` invocation into the queue; what its ack says."""
    command = request.body
    channel = command["channel_id"]
    # A slash command has no thread yet: its key is the invocation; the responder's
    # first post becomes the thread root, and the engine stores the state under it.
    key = ThreadKey("slack", command["team_id"], channel, f"cmd-{command['trigger_id']}")
    spec = ResponderSpec(
        channel=channel,
        thread_ts=None,
        user=command["user_id"],
        response_url=command.get("response_url"),
    )
    text = command.get("text", "").strip() or "help"
    try:
        taken = await submit(
            deps.queue,
            kind="turn",
            incoming=Incoming(key, command["user_id"], text=text, markup=Markup.SLACK),
            spec=spec,
            dedupe=trigger_key(command["team_id"], command["trigger_id"]),
            dedupe_ttl_s=deps.dedupe_ttl_s,
            deadline_s=deps.queue_deadline_s,
        )
    except QueueUnavailable as error:
        return Ack(not_taken_notice(error))
    return Ack(taken_notice(taken))  # no text: taken, or a replay of one taken already


ROUTES = [Route("command", COMMAND, take_command)]
