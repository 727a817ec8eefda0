"""Asking like Slack does, and reading what each asker got from the fake Slack's record.

Every ask is a signed `/runai-why` slash command (v0 HMAC of `v0:{ts}:{body}` with the
signing secret, as Slack signs it) in a channel of its own, with a `response_url` of its
own, so everything the bot showed for it can be told apart:

- **answered**: the fake Slack holds, in the ask's channel, a message whose text begins with
  the expected answer (`OOM_KILLED · <workload name>`), set by a successful `chat.postMessage`
  or `chat.update`; the ask's answer time is that call's arrival.
- **answered twice**: more than one message in the channel carries that answer.
- **spinning**: a message in the channel still reads "Diagnosing …" at the end.
- **told privately**: an ephemeral reply through the ask's `response_url` (busy, queue full,
  an error), with the time it arrived.
- **lost**: acknowledged with HTTP 200 but neither answered nor told anything.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import httpx

from tests.bot.slack.fake_slack import RESPONSE_URL, FakeSlack
from tests.bot.slack.signing import signed_headers, slash_command_body

__all__ = [
    "Ask",
    "Outcome",
    "outcomes",
    "send_all",
    "send_all_httpx",
    "signed_ask",
    "wait_until",
]

_ANSWER_METHODS = frozenset({"chat.postMessage", "chat.update"})
PROGRESS_PREFIX = "Diagnosing"
_SENDING_S = 180.0


@dataclass
class Ask:
    """One slash command: who asked what where, and when it was sent and acknowledged."""

    tag: str
    index: int
    user: str
    text: str
    expect: str
    """The beginning of the answer's text (`OOM_KILLED · bench-0001`)."""
    replica: str = ""
    sent: float = 0.0
    acked: float | None = None
    status: int | None = None
    ack_text: str = ""
    """What the acknowledgement itself said (Slack shows it to the asker only)."""

    @property
    def channel(self) -> str:
        """The ask's own channel."""
        return f"C{self.tag.upper()}{self.index:05d}"

    @property
    def key(self) -> str:
        """The ask's own response_url key."""
        return f"{self.tag}-{self.index}"

    def is_answer(self, text: str) -> bool:
        """Whether a message's text is this ask's answer: its first line is `expect`."""
        first = text.split("\n", 1)[0]
        return first == self.expect or first.startswith(self.expect + " ")

    @property
    def ack_s(self) -> float | None:
        """Seconds from sending to the HTTP response."""
        return None if self.acked is None else self.acked - self.sent


@dataclass
class Outcome:
    """What one asker got, read from the fake Slack."""

    answered_at: float | None = None
    answers: int = 0
    spinning: int = 0
    private: list[tuple[float, str]] = field(default_factory=list)
    first_word_at: float | None = None
    """When anything (placeholder, answer or private reply) first reached the asker."""


def signed_ask(secret: str, ask: Ask, response_url: str) -> tuple[bytes, dict[str, str]]:
    """The ask as a slash command's body, and the headers that sign it as Slack does."""
    body = slash_command_body(
        ask.text,
        user=ask.user,
        channel=ask.channel,
        response_url=response_url,
        trigger_id=f"bench-{ask.key}",
    )
    return body, signed_headers(secret, body)


def _raw(url: str, secret: str, ask: Ask, response_url: str) -> dict[str, object]:
    """The ask as `bench.rawload` sends it: one HTTP/1.1 request on a connection of its own."""
    body, signed = signed_ask(secret, ask, response_url)
    parts = urlsplit(url)
    headers = {**signed, "Content-Length": str(len(body))}
    head = f"POST /slack/events HTTP/1.1\r\nHost: {parts.netloc}\r\n"
    head += "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    data = (head + "Connection: close\r\n\r\n").encode() + body
    return {"host": parts.hostname, "port": parts.port, "data": base64.b64encode(data).decode()}


async def send_all(urls: dict[str, str], secret: str, asks: list[Ask], slack: FakeSlack) -> float:
    """Send every ask at once, each to its replica (`ask.replica`, a key of `urls`).

    From `bench.rawload`, a process of its own over raw sockets, so the sending costs the
    cores the bot runs on as little as a load balancer's would; records each ask's `sent`,
    `acked`, `status` and `ack_text`. Returns the CPU seconds the sending process spent.
    """
    spec = {"requests": [_raw(urls[a.replica], secret, a, slack.response_url(a.key)) for a in asks]}
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bench.rawload",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    try:
        out, _ = await asyncio.wait_for(child.communicate(json.dumps(spec).encode()), _SENDING_S)
    except TimeoutError:
        raise RuntimeError(
            f"bench.rawload sent no report within {_SENDING_S:.0f} s: stopped ({len(asks)} asks)"
        ) from None
    finally:
        if child.returncode is None:  # timed out (or this task was cancelled): end it
            with contextlib.suppress(ProcessLookupError):
                child.kill()
            await child.wait()
    if child.returncode != 0:
        raise RuntimeError(f"bench.rawload exited with {child.returncode}")
    report = json.loads(out)
    for ask, result in zip(asks, report["results"], strict=True):
        ask.sent, ack, ask.status = float(result["sent"]), result["ack"], result["status"]
        ask.acked = None if ack is None else ask.sent + float(ack)
        ask.ack_text = _ack_text(result["body"])
    return float(report["cpu"])


def _ack_text(body: str | None) -> str:
    """What an acknowledgement's JSON body said (its `text`), or "" for none."""
    try:
        return str(json.loads(body or "").get("text") or "")
    except (ValueError, AttributeError):
        return ""


async def send_all_httpx(
    http: httpx.AsyncClient, urls: dict[str, str], secret: str, asks: list[Ask], slack: FakeSlack
) -> None:
    """`send_all` from this process, with an httpx client: only to show what it measures.

    Its own pool and parsing share the event loop that times the replies.
    """
    await asyncio.gather(
        *(_send(http, urls[a.replica], secret, a, slack.response_url(a.key)) for a in asks)
    )


async def _send(
    http: httpx.AsyncClient, url: str, secret: str, ask: Ask, response_url: str
) -> None:
    body, headers = signed_ask(secret, ask, response_url)
    ask.sent = time.monotonic()
    try:
        response = await http.post(f"{url}/slack/events", content=body, headers=headers)
    except httpx.HTTPError:
        ask.status = None
        return
    ask.acked, ask.status = time.monotonic(), response.status_code
    ask.ack_text = _ack_text(response.text)


def outcomes(slack: FakeSlack, asks: list[Ask]) -> dict[str, Outcome]:
    """Each ask's outcome (by `ask.key`), from one pass over the fake Slack's record.

    The messages' final texts are replayed from the calls (a post creates a message, an
    update replaces its text, a delete removes it), in the order the fake received them.
    """
    by_channel = {a.channel: a for a in asks}
    by_key = {a.key: a for a in asks}
    found: dict[str, Outcome] = defaultdict(Outcome)
    texts: dict[tuple[str, str], str] = {}
    for call in slack.calls():
        if call.method == RESPONSE_URL and call.key in by_key:
            outcome = found[call.key]
            outcome.private.append((call.at, call.text))
            _heard(outcome, call.at)
            continue
        channel = str(call.body.get("channel", ""))
        ask = by_channel.get(channel)
        if ask is None or not call.ok:
            continue
        if call.method == "chat.delete":
            texts.pop((channel, str(call.body.get("ts"))), None)
            continue
        if call.method not in _ANSWER_METHODS:
            continue
        ts = str(
            call.response.get("ts") if call.method == "chat.postMessage" else call.body.get("ts")
        )
        texts[channel, ts] = call.text
        outcome = found[ask.key]
        _heard(outcome, call.at)
        if ask.is_answer(call.text) and outcome.answered_at is None:
            outcome.answered_at = call.at
    for (channel, _), text in texts.items():
        ask = by_channel[channel]
        if ask.is_answer(text):
            found[ask.key].answers += 1
        elif text.startswith(PROGRESS_PREFIX):
            found[ask.key].spinning += 1
    return {a.key: found[a.key] for a in asks}


def _heard(outcome: Outcome, at: float) -> None:
    if outcome.first_word_at is None or at < outcome.first_word_at:
        outcome.first_word_at = at


async def wait_until(
    slack: FakeSlack,
    asks: list[Ask],
    *,
    timeout_s: float,
    quiet_s: float = 15.0,
    private_is_final: bool = True,
) -> dict[str, Outcome]:
    """Poll until every ask is settled, nothing changed for `quiet_s`, or `timeout_s` passed.

    An ask is settled when it is answered, was not acknowledged, or (`private_is_final`)
    was told something privately (an error or "busy": no answer will follow).
    """
    deadline = time.monotonic() + timeout_s
    last_change, last_count = time.monotonic(), -1
    while True:
        found = outcomes(slack, asks)
        done = sum(1 for a in asks if _settled(a, found[a.key], private_is_final=private_is_final))
        count = len(slack.calls())
        if count != last_count:
            last_change, last_count = time.monotonic(), count
        now = time.monotonic()
        if done == len(asks) or now >= deadline or now - last_change > quiet_s:
            return found
        await asyncio.sleep(0.25)


def _settled(ask: Ask, outcome: Outcome, *, private_is_final: bool) -> bool:
    if ask.status != 200 or outcome.answered_at is not None:  # noqa: PLR2004
        return True
    return private_is_final and bool(outcome.private)
