"""What an asker is told when the queue answered their request, its own cap included."""

from __future__ import annotations

from bot.conversation.edges import taken_notice
from bot.work.item import Enqueued, Intake

__all__ = ["capped", "intake_notice"]


def capped(held: int) -> str:
    """Told privately when the asker already has as many requests in the queue as one may."""
    many = "request" if held == 1 else "requests"
    return (
        f"You already have {held} {many} waiting or being answered, as many as I take from "
        "one person at a time, so I did not take this one and lost nothing. Please ask again "
        "once one of them is answered."
    )


def intake_notice(taken: Enqueued) -> str | None:
    """What the asker is told: over their own cap, the queue full, or their place; None: nothing.

    Only the asker over their cap is refused for it: everyone else's requests are taken as
    before (`bot.conversation.edges.taken_notice` says the rest).
    """
    if taken.intake is Intake.CAPPED:
        return capped(taken.held)
    return taken_notice(taken)
