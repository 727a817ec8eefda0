"""Per-user authorization: who is asking, and may they see workloads of this project?

The engine resolves the asker (`SlackIdentityResolver.resolve`, or `Identity.console`),
then asks `Authorizer.check(identity, Target(...))` before showing anything, and filters
candidate lists with `Decision.allows_kind`. A denial is `Decision.message()`, sent only to
the asker, and audited with `bot.audit.authz_denial_event`.
"""

from bot.authz.authorizer import DECISION_CACHE_PREFIX, AccessReader, Authorizer, AuthzMode
from bot.authz.channel import channel_allows
from bot.authz.decision import ALL_KINDS, READ_RESOURCES, Decision, Reason, Target
from bot.authz.identity import (
    IDENTITY_CACHE_PREFIX,
    IDENTITY_CACHE_TTL_S,
    Identity,
    IdentityCache,
    SlackIdentityResolver,
    identity_from_slack_user,
)

__all__ = [
    "ALL_KINDS",
    "DECISION_CACHE_PREFIX",
    "IDENTITY_CACHE_PREFIX",
    "IDENTITY_CACHE_TTL_S",
    "READ_RESOURCES",
    "AccessReader",
    "Authorizer",
    "AuthzMode",
    "Decision",
    "Identity",
    "IdentityCache",
    "Reason",
    "SlackIdentityResolver",
    "Target",
    "channel_allows",
    "identity_from_slack_user",
]
