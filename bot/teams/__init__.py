"""The Microsoft Teams front end: `POST /api/messages` on the same engine, store and authorizer.

Built on Microsoft's Teams SDK for Python at the level that fits: `microsoft-teams-api`'s
activity and account models read the verified bodies (`bot.teams.activity`,
`bot.teams.identity`). Its `App` and HTTP server (`microsoft-teams-apps`) are not used: they
parse the body (FastAPI's `request.json()`, then `serviceUrl`) before the token is checked,
fetch signing keys with a blocking `PyJWKClient` on the event loop, derive the keys URL from
the metadata URL instead of reading its `jwks_uri`, and bring FastAPI, dependency-injector
and MSAL into a Starlette process. So the gate (`bot.teams.auth`), the outbound token
(`bot.teams.token`) and the four Bot Connector calls (`bot.teams.connector`) are our own,
async, on one injectable httpx client.
"""
