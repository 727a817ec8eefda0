"""Per-user authorization: who is asking, and may they see workloads of this project?

The engine resolves the asker (its front end's `identify`: `bot.slack.identity.SlackIdentify`,
`bot.teams.identity.TeamsIdentify`, or `Identity.console`), then asks
`Authorizer.check(identity, Target(..., kind=...))` before showing anything about a workload
(its cluster, project and kind), and `Authorizer.reach(identity)` before naming any cluster.
A denial is `Decision.message()` (or `Reach.message()`), sent only to the asker, and audited
with `bot.ops.audit_events.authz_denial_event`.
"""

from bot.authz.authorizer import DECISION_CACHE_PREFIX, AccessReader, Authorizer, AuthzMode
from bot.authz.channel import channel_allows
from bot.authz.decision import (
    ALL_KINDS,
    ANY_KIND,
    READ_RESOURCES,
    AnyKind,
    Decision,
    Reach,
    Reason,
    Target,
)
from bot.authz.identity import (
    IDENTITY_CACHE_PREFIX,
    IDENTITY_CACHE_TTL_S,
    Identity,
    IdentityCache,
)

__all__ = [
    "ALL_KINDS",
    "ANY_KIND",
    "DECISION_CACHE_PREFIX",
    "IDENTITY_CACHE_PREFIX",
    "IDENTITY_CACHE_TTL_S",
    "READ_RESOURCES",
    "AccessReader",
    "AnyKind",
    "Authorizer",
    "AuthzMode",
    "Decision",
    "Identity",
    "IdentityCache",
    "Reach",
    "Reason",
    "Target",
    "channel_allows",
]
