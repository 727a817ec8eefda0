"""The one root of every exception the bot defines: `except BotError` catches them all.

```
BotError                        anything bot/ raises on purpose
├── ConfigError                 the configuration is missing or unusable (`bot.config`)
├── Refused                     a request body the bot will not handle (`bot.web.body`)
├── PoolExhausted               every pooled Redis connection stayed busy (`bot.durable`;
│                               also redis' MaxConnectionsError, for the code that catches it)
├── _Failed                     Redis failed while coordinating a flight (`bot.durable.flight`)
├── StoreUnavailable            the state store (Redis) failed: nothing was processed
│   ├── ThreadBusy              another turn still holds the thread (`bot.conversation`)
│   ├── StoreBusy               the Redis connection pool is exhausted (`bot.conversation`)
│   ├── QueueUnavailable        the work queue could not take or change an item (`bot.work`)
│   └── KvUnavailable           the push state could not be read or changed (`bot.push`)
├── AlertStillFiring            a resolution whose firing alert is still answered (`bot.push`)
├── SubscriberUnchecked         a watch's subscriber's access could not be read (`bot.push`)
├── RetryLater                  a Slack event not taken: Slack sends it again (`bot.slack`)
├── ResponseUrlRefused          Slack did not take a post to a `response_url` (`bot.slack`)
└── (Teams, `bot.teams`)
    ├── NotForUs                an activity the bot does not act on
    ├── TokenRejected           an inbound token is missing or not valid
    ├── KeysUnavailable         no trusted signing keys, and none could be fetched now
    ├── TokenUnavailable        the login endpoint gave the bot no token
    └── ConnectorError          a Bot Connector call failed
```

Each is defined beside the code that raises it and keeps its other bases, so an existing
`except` clause (for `MaxConnectionsError`, say) still catches it.
"""

from __future__ import annotations

__all__ = ["BotError"]


class BotError(Exception):
    """The root of every exception defined in bot/."""
