"""A fake Slack Web API served over real HTTP on loopback, for end-to-end tests of the bot.

The bot under test talks to it exactly as it talks to Slack: point its
`AsyncWebClient(base_url=fake.base_url)` here and hand out `fake.response_url(key)` as the
slash command's `response_url`. Every request is recorded (method, headers, parsed body), the
usual methods answer like Slack does, and failures can be scripted per method:

    with FakeSlack() as fake:
        fake.fail_next("chat.postMessage", status=429, retry_after=1)
        ...  # drive the bot
        [post] = fake.wait_for("chat.postMessage")
        assert post.body["thread_ts"] == "1700000000.000100"
        assert fake.violations == []

Every message payload is also checked against Slack's Block Kit limits and slack_sdk's own
model validation, and `link_names` / `parse` (which turn untrusted text into live mentions) are
flagged; problems land in `fake.violations`, which tests keep empty.

Files upload v2 works as in Slack: `files.getUploadURLExternal` hands out an upload URL on
this fake, the bytes are POSTed there, `files.completeUploadExternal` shares the file (into a
channel or thread, or keeps it private); `fake.files()` lists what arrived, and an image
block whose `slack_file` is not a completed file shared in that channel is `invalid_blocks`.

The server is the standard library's `ThreadingHTTPServer` (one thread per connection, HTTP/1.1
keep-alive), so aiohttp's pooled connections never starve each other; `stop()` closes idle
keep-alive connections and joins every handler thread, leaving nothing behind.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import itertools
import json
import socket
import sys
import threading
import time
from collections import Counter, defaultdict, deque
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any, Self
from urllib.parse import parse_qs, urlsplit

from slack_sdk.models.blocks import Block

if TYPE_CHECKING:
    from collections.abc import Callable
    from types import TracebackType

__all__ = [
    "APP_ID",
    "BOT_ID",
    "BOT_NAME",
    "BOT_USER_ID",
    "RESPONSE_URL",
    "RESPONSE_URL_USES",
    "TEAM_ID",
    "UPLOAD",
    "Call",
    "FakeSlack",
    "UploadedFile",
    "Violation",
    "check_blocks",
]

BOT_USER_ID = "UBOT"
BOT_ID = "BBOT"
BOT_NAME = "runai-why"
TEAM_ID = "T1"
APP_ID = "A1"
RESPONSE_URL = "response_url"
"""Pseudo method name under which POSTs to `response_url(key)` are recorded."""
RESPONSE_URL_USES = 5
"""Posts Slack takes to one `response_url`; it answers the next ones 404 `used_url`."""
UPLOAD = "file_upload"
"""Pseudo method name under which POSTs of file bytes to an upload URL are recorded."""
_UPLOAD_PATH = "/upload/"

MAX_BLOCKS = 50
MAX_SECTION_TEXT = 3000
MAX_SECTION_FIELDS = 10
MAX_SECTION_FIELD_TEXT = 2000
MAX_HEADER_TEXT = 150
MAX_CONTEXT_ELEMENTS = 10
MAX_ACTIONS_ELEMENTS = 25
MAX_MARKDOWN_TOTAL = 12_000
MAX_BLOCK_ID = 255
MAX_MESSAGE_TEXT = 40_000

_MESSAGE_METHODS = frozenset(
    {"chat.postMessage", "chat.postEphemeral", "chat.update", "chat.scheduleMessage"}
)
_JSON_FIELDS = ("blocks", "attachments", "metadata")
_FIRST_TS = 1_700_000_000
_READY_TIMEOUT_S = 10.0
_POLL_S = 0.02


@dataclass(frozen=True)
class Call:
    """One request the fake received, and what it answered."""

    method: str
    """Web API method (`chat.postMessage`), or `RESPONSE_URL` for a response_url POST."""
    http_method: str
    path: str
    headers: dict[str, str]
    """Request headers, names lower-cased."""
    query: dict[str, str]
    body: dict[str, Any]
    """Query arguments and the parsed body (form or JSON), with `blocks`, `attachments` and
    `metadata` decoded when they were sent as JSON strings."""
    raw: bytes
    status: int
    response: Any
    key: str | None = None
    """The `<key>` of `/response/<key>` for response_url POSTs."""
    at: float = field(default_factory=time.monotonic)
    peer: tuple[str, int] | None = None
    """The client's address and port: calls over one kept-alive connection share it."""

    @property
    def text(self) -> str:
        """The top-level `text` argument ("" when there is none)."""
        value = self.body.get("text")
        return value if isinstance(value, str) else ""

    @property
    def blocks(self) -> list[Any]:
        """The decoded `blocks` argument, or an empty list."""
        value = self.body.get("blocks")
        return value if isinstance(value, list) else []

    @property
    def ok(self) -> bool:
        """Whether the fake answered this call successfully."""
        if isinstance(self.response, dict):
            return bool(self.response.get("ok"))
        return self.status == HTTPStatus.OK


@dataclass(frozen=True)
class Violation:
    """A payload Slack would reject or that breaks one of our rules for untrusted text."""

    method: str
    problem: str

    def __str__(self) -> str:
        return f"{self.method}: {self.problem}"


@dataclass
class UploadedFile:
    """A file of the upload v2 flow: announced, then its bytes, then completed (shared)."""

    id: str
    filename: str
    length: int
    alt_txt: str | None
    data: bytes | None = None
    title: str | None = None
    completed: bool = False
    channel: str | None = None
    thread_ts: str | None = None


@dataclass
class _Script:
    status: int
    error: str | None
    retry_after: int | None
    delay: float
    remaining: int


@dataclass(frozen=True)
class _Answer:
    status: int
    payload: Any
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


def check_blocks(blocks: Any) -> list[str]:
    """Problems Slack (or slack_sdk's models) would have with this `blocks` value.

    Checks the documented message limits (at most 50 blocks, section text 3,000 and fields
    10 x 2,000, header `plain_text` 150, context 10 elements, actions 25 elements, markdown
    blocks 12,000 in total, block_id 255), then runs slack_sdk's model validation
    (`Block.parse(block).to_dict()`, which calls `validate_json()` on the block and every nested
    object). Usable on its own in unit tests of the Block Kit renderer.
    """
    if isinstance(blocks, str):
        try:
            blocks = json.loads(blocks)
        except json.JSONDecodeError:
            return ["blocks is not valid JSON"]
    if not isinstance(blocks, list):
        return [f"blocks must be a JSON array, got {type(blocks).__name__}"]
    problems: list[str] = []
    if len(blocks) > MAX_BLOCKS:
        problems.append(f"{len(blocks)} blocks, Slack allows at most {MAX_BLOCKS}")
    markdown_total = 0
    for index, block in enumerate(blocks):
        where = f"blocks[{index}]"
        if not isinstance(block, dict):
            problems.append(f"{where}: not an object")
            continue
        own = _limit_problems(block)
        if block.get("type") == "markdown":
            markdown_total += len(str(block.get("text", "")))
        problems.extend(f"{where} ({block.get('type')}): {p}" for p in own or _sdk_problems(block))
    if markdown_total > MAX_MARKDOWN_TOTAL:
        problems.append(f"markdown blocks total {markdown_total} chars > {MAX_MARKDOWN_TOTAL}")
    return problems


def _text_of(obj: Any) -> str:
    if isinstance(obj, dict):
        return str(obj.get("text", ""))
    return "" if obj is None else str(obj)


def _section_problems(block: dict[str, Any]) -> list[str]:
    text, fields = block.get("text"), block.get("fields") or []
    problems = [] if text is not None or fields else ["section needs text or fields"]
    if len(_text_of(text)) > MAX_SECTION_TEXT:
        problems.append(f"text is {len(_text_of(text))} chars > {MAX_SECTION_TEXT}")
    if len(fields) > MAX_SECTION_FIELDS:
        problems.append(f"{len(fields)} fields > {MAX_SECTION_FIELDS}")
    problems.extend(
        f"fields[{i}] is {len(_text_of(f))} chars > {MAX_SECTION_FIELD_TEXT}"
        for i, f in enumerate(fields)
        if len(_text_of(f)) > MAX_SECTION_FIELD_TEXT
    )
    return problems


def _header_problems(block: dict[str, Any]) -> list[str]:
    text = block.get("text")
    problems = []
    if not isinstance(text, dict) or text.get("type") != "plain_text":
        problems.append("header text must be a plain_text object")
    if len(_text_of(text)) > MAX_HEADER_TEXT:
        problems.append(f"header text is {len(_text_of(text))} chars > {MAX_HEADER_TEXT}")
    return problems


def _elements_problems(block: dict[str, Any]) -> list[str]:
    kind = block.get("type")
    limit = MAX_CONTEXT_ELEMENTS if kind == "context" else MAX_ACTIONS_ELEMENTS
    count = len(block.get("elements") or [])
    return [f"{count} {kind} elements > {limit}"] if count > limit else []


_BLOCK_CHECKS: dict[str, Callable[[dict[str, Any]], list[str]]] = {
    "section": _section_problems,
    "header": _header_problems,
    "context": _elements_problems,
    "actions": _elements_problems,
}


def _limit_problems(block: dict[str, Any]) -> list[str]:
    problems = []
    if len(str(block.get("block_id", ""))) > MAX_BLOCK_ID:
        problems.append(f"block_id longer than {MAX_BLOCK_ID}")
    check = _BLOCK_CHECKS.get(str(block.get("type")))
    return problems + (check(block) if check else [])


def _sdk_problems(block: dict[str, Any]) -> list[str]:
    try:
        parsed = Block.parse(copy.deepcopy(block))
        if parsed is None:
            return [f"unknown block type {block.get('type')!r}"]
        parsed.to_dict()  # validate_json() on the block and, recursively, its elements
    except Exception as exc:  # noqa: BLE001 - any failure here is the finding itself.
        return [f"slack_sdk rejects it: {exc}"]
    return []


def _message_problems(method: str, args: dict[str, Any]) -> list[str]:
    problems = [
        f"{flag}={args[flag]!r} sent: it turns untrusted @names/#channels into live mentions"
        for flag in ("link_names", "parse")
        if flag in args
    ]
    if "blocks" in args:
        problems.extend(check_blocks(args["blocks"]))
    text = args.get("text")
    if isinstance(text, str) and len(text) > MAX_MESSAGE_TEXT:
        problems.append(f"text is {len(text)} chars > {MAX_MESSAGE_TEXT} (Slack truncates it)")
    if method in _MESSAGE_METHODS and args.get("blocks") and not text:
        problems.append("blocks without a top-level text fallback (notifications, accessibility)")
    return problems


def _flatten(parsed: dict[str, list[str]]) -> dict[str, Any]:
    return {k: v[-1] if len(v) == 1 else v for k, v in parsed.items()}


def _parse_body(content_type: str, raw: bytes) -> dict[str, Any]:
    if not raw:
        return {}
    text = raw.decode("utf-8", errors="replace")
    if "json" in content_type or text.lstrip().startswith("{"):
        try:
            decoded = json.loads(text)
        except json.JSONDecodeError:
            return {"_unparsed": text}
        return decoded if isinstance(decoded, dict) else {"_json": decoded}
    return _flatten(parse_qs(text, keep_blank_values=True))


def _decode_json_fields(args: dict[str, Any]) -> None:
    for name in _JSON_FIELDS:
        value = args.get(name)
        if isinstance(value, str):
            # left as a string if invalid; check_blocks reports invalid JSON in blocks
            with contextlib.suppress(json.JSONDecodeError):
                args[name] = json.loads(value)


class FakeSlack:
    """The fake Slack Web API. Use as a context manager, or call `start()` and `stop()`.

    Attributes:
        violations: Problems found in payloads the fake received; tests assert it is empty.
        channels: Overrides for `conversations.info`, by channel ID (merged over defaults).
        users: Overrides for `users.info`, by user ID (merged over defaults).
    """

    def __init__(self, *, host: str = "127.0.0.1") -> None:
        self._host = host
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._calls: list[Call] = []
        self._scripts: dict[str, deque[_Script]] = defaultdict(deque)
        self._messages: dict[tuple[str, str], dict[str, Any]] = {}
        self._ts = itertools.count(100)
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        #: Set on stop: a call answered late is answered at once instead (nobody is waiting).
        self.stopping = threading.Event()
        self.violations: list[Violation] = []
        self.channels: dict[str, dict[str, Any]] = {}
        self.users: dict[str, dict[str, Any]] = {}
        self._response_url_uses: Counter[str] = Counter()

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> Self:
        """Bind an ephemeral loopback port and serve in a background thread."""
        if self._server is not None:
            raise RuntimeError("FakeSlack is already running")
        self.stopping.clear()
        server = _Server((self._host, 0), _Handler, self)
        thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.01}, name="fake-slack"
        )
        thread.start()
        self._server, self._thread = server, thread
        return self

    def stop(self) -> None:
        """Stop serving, close keep-alive connections and join every thread. Idempotent."""
        server, thread = self._server, self._thread
        if server is None or thread is None:
            return
        self._server = self._thread = None
        self.stopping.set()
        server.shutdown()
        server.close_connections()
        server.server_close()  # joins the per-connection handler threads
        thread.join(_READY_TIMEOUT_S)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def root_url(self) -> str:
        """`http://127.0.0.1:PORT` (no trailing slash)."""
        if self._server is None:
            raise RuntimeError("FakeSlack is not running: call start() first")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def base_url(self) -> str:
        """The Web API base URL for `AsyncWebClient(base_url=...)`; ends with `/`."""
        return f"{self.root_url}/api/"

    def response_url(self, key: str = "r1") -> str:
        """A slash-command/interaction `response_url` served by this fake."""
        return f"{self.root_url}/response/{key}"

    # ------------------------------------------------------------------ scripting

    def fail_next(
        self,
        method: str,
        *,
        status: int | None = None,
        error: str | None = None,
        retry_after: int | None = None,
        count: int = 1,
        delay: float = 0.0,
    ) -> None:
        """Script the next `count` calls of `method` (or `RESPONSE_URL`).

        - `status=429` (or just `retry_after=N`): HTTP 429 with `Retry-After: N` (default 1)
          and `{"ok": false, "error": "ratelimited"}`.
        - `error="not_in_channel"`: HTTP 200 with `{"ok": false, "error": ...}`.
        - `status=500` / `503`: that status with `{"ok": false, "error": error or
          "internal_error"}`.
        - `delay=S` alone: the normal answer, `S` seconds late (slow-Slack tests).

        For `RESPONSE_URL`, an error is answered as plain text with `status` (default 404),
        the way Slack answers an expired or overused response_url.
        """
        if count < 1:
            raise ValueError("count must be at least 1")
        if retry_after is not None and status is None:
            status = HTTPStatus.TOO_MANY_REQUESTS
        if status is None:
            if error is None and delay <= 0:
                raise ValueError("say what to do: status=, error=, retry_after= or delay=")
            is_response_url = method == RESPONSE_URL and error is not None
            status = HTTPStatus.NOT_FOUND if is_response_url else HTTPStatus.OK
        if status == HTTPStatus.TOO_MANY_REQUESTS and retry_after is None:
            retry_after = 1
        script = _Script(int(status), error, retry_after, delay, count)
        with self._lock:
            self._scripts[method].append(script)

    def delay_next(self, method: str, seconds: float, *, count: int = 1) -> None:
        """Answer the next `count` calls of `method` normally, but `seconds` late."""
        self.fail_next(method, delay=seconds, count=count)

    def seed_message(
        self,
        channel: str,
        ts: str,
        text: str,
        *,
        user: str = "U1",
        thread_ts: str | None = None,
    ) -> dict[str, Any]:
        """Add a message (e.g. a user's) so `conversations.replies`/`chat.update` can see it."""
        message: dict[str, Any] = {"type": "message", "user": user, "text": text, "ts": ts}
        if thread_ts is not None:
            message["thread_ts"] = thread_ts
        with self._lock:
            self._messages[channel, ts] = message
        return message

    # ------------------------------------------------------------------ inspection

    def calls(self, method: str | None = None) -> list[Call]:
        """Calls received so far, oldest first, optionally only those of one method."""
        with self._lock:
            return [c for c in self._calls if method is None or c.method == method]

    def messages(self, channel: str | None = None) -> list[dict[str, Any]]:
        """Messages currently stored (posted, updated or seeded), ordered by ts."""
        with self._lock:
            found = [dict(m) for (ch, _), m in self._messages.items() if channel in (None, ch)]
        return sorted(found, key=lambda m: float(m["ts"]))

    def clear(self) -> None:
        """Forget calls, violations, scripted failures, stored messages, response_url posts."""
        with self._lock:
            self._calls.clear()
            self._scripts.clear()
            self._messages.clear()
            self._response_url_uses.clear()
            self.violations.clear()
            self._file_store().clear()

    def wait_for(
        self,
        method: str,
        count: int = 1,
        timeout: float = 10.0,
        *,
        where: Callable[[Call], bool] | None = None,
    ) -> list[Call]:
        """Block until at least `count` calls of `method` (matching `where`) arrived.

        Returns all matching calls. Raises AssertionError, listing what did arrive, on timeout.
        Blocks the calling thread: from a coroutine that shares its loop with the code under
        test, use `wait_for_async`.
        """
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                found = self._matching(method, where)
                if len(found) >= count:
                    return found
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AssertionError(self._timeout_message(method, count, found, timeout))
                self._changed.wait(min(remaining, 0.25))

    async def wait_for_async(
        self,
        method: str,
        count: int = 1,
        timeout: float = 10.0,  # noqa: ASYNC109 - a polling deadline, same signature as wait_for
        *,
        where: Callable[[Call], bool] | None = None,
    ) -> list[Call]:
        """`wait_for` that polls with `asyncio.sleep`, leaving the event loop free."""
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                found = self._matching(method, where)
                if len(found) >= count:
                    return found
                if time.monotonic() >= deadline:
                    raise AssertionError(self._timeout_message(method, count, found, timeout))
            await asyncio.sleep(_POLL_S)

    def _matching(self, method: str, where: Callable[[Call], bool] | None) -> list[Call]:
        return [c for c in self._calls if c.method == method and (where is None or where(c))]

    def _timeout_message(self, method: str, count: int, found: list[Call], timeout: float) -> str:
        seen = [f"{c.method} -> {c.status}" for c in self._calls]
        return (
            f"expected {count} matching {method} call(s) within {timeout}s, got {len(found)}; "
            f"all calls so far: {seen}"
        )

    # ------------------------------------------------------------------ request handling

    def _handle(
        self,
        http_method: str,
        target: str,
        headers: dict[str, str],
        raw: bytes,
        peer: tuple[str, int] | None = None,
    ) -> _Answer:
        split = urlsplit(target)
        if split.path.startswith(_UPLOAD_PATH):
            return self._receive_upload(http_method, target, headers, raw, peer)
        key: str | None = None
        if split.path.startswith("/api/"):
            method = split.path.removeprefix("/api/")
        elif split.path.startswith("/response/"):
            method, key = RESPONSE_URL, split.path.removeprefix("/response/")
        else:
            method = split.path
        query = _flatten(parse_qs(split.query, keep_blank_values=True))
        body = {**query, **_parse_body(headers.get("content-type", ""), raw)}
        _decode_json_fields(body)
        problems = (
            _message_problems(method, body) if method.startswith(("chat.", RESPONSE_URL)) else []
        )
        with self._changed:
            answer = self._answer(method, key, headers, body)
            if key is not None and answer.status == HTTPStatus.OK:
                self._response_url_uses[key] += 1
            self._calls.append(
                Call(
                    method=method,
                    http_method=http_method,
                    path=split.path,
                    headers=headers,
                    query=query,
                    body=body,
                    raw=raw,
                    status=answer.status,
                    response=answer.payload,
                    key=key,
                    peer=peer,
                )
            )
            self.violations.extend(Violation(method, p) for p in problems)
            self._changed.notify_all()
        return answer

    def _answer(
        self, method: str, key: str | None, headers: dict[str, str], args: dict[str, Any]
    ) -> _Answer:
        """Decide the response; called with the lock held."""
        if method == RESPONSE_URL:
            if not key:
                return _Answer(HTTPStatus.NOT_FOUND, "invalid_url")
            if self._response_url_uses[key] >= RESPONSE_URL_USES:
                return _Answer(HTTPStatus.NOT_FOUND, "used_url")
        elif not method.startswith("/"):
            auth = headers.get("authorization", "")
            if not auth:
                return _Answer(HTTPStatus.OK, {"ok": False, "error": "not_authed"})
            if not auth.startswith("Bearer xoxb-"):
                return _Answer(HTTPStatus.OK, {"ok": False, "error": "invalid_auth"})
        else:
            return _Answer(HTTPStatus.NOT_FOUND, {"ok": False, "error": "unknown_method"})
        scripts = self._scripts.get(method)
        if scripts:
            script = scripts[0]
            script.remaining -= 1
            if script.remaining == 0:
                scripts.popleft()
            if script.status != HTTPStatus.OK or script.error is not None:
                return _scripted(method, script)
            answer = self._normal(method, args)
            return _Answer(answer.status, answer.payload, answer.headers, script.delay)
        return self._normal(method, args)

    def _normal(self, method: str, args: dict[str, Any]) -> _Answer:
        if method == RESPONSE_URL:
            return _Answer(HTTPStatus.OK, "ok")
        if unknown := self._unknown_slack_files(method, args):
            return _Answer(
                HTTPStatus.OK, {"ok": False, "error": "invalid_blocks", "errors": unknown}
            )
        handler = _METHODS.get(method)
        payload = handler(self, args) if handler else {"ok": True}
        return _Answer(HTTPStatus.OK, payload)

    def _next_ts(self) -> str:
        n = next(self._ts)
        return f"{_FIRST_TS + n // 1_000_000}.{n % 1_000_000:06d}"

    # Web API methods (called with the lock held) ------------------------------------

    def _auth_test(self, _args: dict[str, Any]) -> dict[str, Any]:
        return {
            "ok": True,
            "url": "https://t1.slack.com/",
            "team": "Test Team",
            "user": BOT_NAME,
            "team_id": TEAM_ID,
            "user_id": BOT_USER_ID,
            "bot_id": BOT_ID,
            "is_enterprise_install": False,
        }

    def _post_message(self, args: dict[str, Any]) -> dict[str, Any]:
        channel = args.get("channel")
        if not channel:
            return {"ok": False, "error": "channel_not_found"}
        if not (args.get("text") or args.get("blocks") or args.get("attachments")):
            return {"ok": False, "error": "no_text"}
        ts = self._next_ts()
        message: dict[str, Any] = {
            "type": "message",
            "text": args.get("text", ""),
            "user": BOT_USER_ID,
            "bot_id": BOT_ID,
            "app_id": APP_ID,
            "team": TEAM_ID,
            "ts": ts,
        }
        for name in ("blocks", "attachments", "thread_ts", "metadata"):
            if args.get(name):
                message[name] = args[name]
        self._messages[channel, ts] = message
        return {"ok": True, "channel": channel, "ts": ts, "message": message}

    def _update(self, args: dict[str, Any]) -> dict[str, Any]:
        channel, ts = args.get("channel"), args.get("ts")
        if not channel:
            return {"ok": False, "error": "channel_not_found"}
        message = self._messages.get((channel, str(ts)))
        if message is None:
            return {"ok": False, "error": "message_not_found"}
        for name in ("text", "blocks", "attachments", "metadata"):
            if name in args:
                message[name] = args[name]
        message["edited"] = {"user": BOT_USER_ID, "ts": self._next_ts()}
        return {
            "ok": True,
            "channel": channel,
            "ts": ts,
            "text": message.get("text", ""),
            "message": message,
        }

    def _post_ephemeral(self, args: dict[str, Any]) -> dict[str, Any]:
        if not args.get("channel"):
            return {"ok": False, "error": "channel_not_found"}
        if not args.get("user"):
            return {"ok": False, "error": "user_not_found"}
        return {"ok": True, "message_ts": self._next_ts()}

    def _delete(self, args: dict[str, Any]) -> dict[str, Any]:
        channel, ts = args.get("channel"), str(args.get("ts"))
        if self._messages.pop((str(channel), ts), None) is None:
            return {"ok": False, "error": "message_not_found"}
        return {"ok": True, "channel": channel, "ts": ts}

    def _conversations_info(self, args: dict[str, Any]) -> dict[str, Any]:
        channel = args.get("channel")
        if not channel:
            return {"ok": False, "error": "channel_not_found"}
        info = {
            "id": channel,
            "name": f"channel-{str(channel).lower()}",
            "is_channel": str(channel).startswith("C"),
            "is_group": str(channel).startswith("G"),
            "is_im": str(channel).startswith("D"),
            "is_private": not str(channel).startswith("C"),
            "is_member": True,
            "is_archived": False,
        }
        return {"ok": True, "channel": {**info, **self.channels.get(channel, {})}}

    def _users_info(self, args: dict[str, Any]) -> dict[str, Any]:
        user = args.get("user")
        if not user:
            return {"ok": False, "error": "user_not_found"}
        name = f"user-{str(user).lower()}"
        info = {
            "id": user,
            "team_id": TEAM_ID,
            "name": name,
            "real_name": name.title(),
            "tz": "UTC",
            "is_bot": user == BOT_USER_ID,
            "deleted": False,
            "is_restricted": False,
            "is_ultra_restricted": False,
            "is_email_confirmed": True,
            "profile": {
                "display_name": name,
                "real_name": name.title(),
                "email": f"{name}@example.com",
            },
        }
        return {"ok": True, "user": {**info, **self.users.get(user, {})}}

    def _conversations_replies(self, args: dict[str, Any]) -> dict[str, Any]:
        channel, ts = args.get("channel"), str(args.get("ts"))
        thread = [
            dict(m)
            for (ch, mts), m in self._messages.items()
            if ch == channel and ts in (mts, m.get("thread_ts"))
        ]
        if not thread:
            return {"ok": False, "error": "thread_not_found"}
        thread.sort(key=lambda m: float(m["ts"]))
        return {"ok": True, "messages": thread, "has_more": False}

    def _conversations_history(self, args: dict[str, Any]) -> dict[str, Any]:
        """The channel's own messages (not thread replies) from `oldest` on, newest first."""
        channel, oldest = args.get("channel"), float(args.get("oldest") or 0)
        if not channel:
            return {"ok": False, "error": "channel_not_found"}
        found = [
            dict(m)
            for (ch, ts), m in self._messages.items()
            if ch == channel and m.get("thread_ts", ts) == ts and float(ts) >= oldest
        ]
        found.sort(key=lambda m: float(m["ts"]), reverse=True)
        return {"ok": True, "messages": found, "has_more": False}

    # Files upload v2 (and the image blocks that show an uploaded file) ---------------

    def files(self) -> list[UploadedFile]:
        """Every file announced with `files.getUploadURLExternal`, oldest first."""
        with self._lock:
            return list(self._file_store().values())

    def _file_store(self) -> dict[str, UploadedFile]:
        store: dict[str, UploadedFile] = self.__dict__.setdefault("_uploaded_files", {})
        return store

    def _get_upload_url(self, args: dict[str, Any]) -> dict[str, Any]:
        filename, length = args.get("filename"), str(args.get("length", ""))
        if not filename or not length.isdigit() or int(length) <= 0:
            return {"ok": False, "error": "invalid_arguments"}
        store = self._file_store()
        file_id = f"F{len(store) + 1:010d}"
        alt = args.get("alt_txt") or args.get("alt_text")
        store[file_id] = UploadedFile(file_id, str(filename), int(length), alt and str(alt))
        return {
            "ok": True,
            "upload_url": f"{self.root_url}{_UPLOAD_PATH}{file_id}",
            "file_id": file_id,
        }

    def _receive_upload(
        self,
        http_method: str,
        target: str,
        headers: dict[str, str],
        raw: bytes,
        peer: tuple[str, int] | None = None,
    ) -> _Answer:
        """The upload URL: no token (it is pre-authorised), the bytes must match the length."""
        path = urlsplit(target).path
        file_id = path.removeprefix(_UPLOAD_PATH)
        with self._changed:
            upload = self._file_store().get(file_id)
            scripts = self._scripts.get(UPLOAD)
            if scripts:
                script = scripts[0]
                script.remaining -= 1
                if script.remaining == 0:
                    scripts.popleft()
                answer = _scripted(UPLOAD, script)
            elif upload is None or http_method != "POST":
                answer = _Answer(HTTPStatus.NOT_FOUND, "unknown upload URL")
            elif len(raw) != upload.length:
                answer = _Answer(HTTPStatus.BAD_REQUEST, f"expected {upload.length} bytes")
            else:
                upload.data = raw
                answer = _Answer(HTTPStatus.OK, f"OK - {len(raw)}")
            self._calls.append(
                Call(UPLOAD, http_method, path, headers, {}, {}, raw, answer.status,
                     answer.payload, key=file_id, peer=peer)
            )  # fmt: skip
            self._changed.notify_all()
        return answer

    def _complete_upload(self, args: dict[str, Any]) -> dict[str, Any]:
        entries = args.get("files")
        if isinstance(entries, str):
            try:
                entries = json.loads(entries)
            except json.JSONDecodeError:
                return {"ok": False, "error": "invalid_arguments"}
        if not isinstance(entries, list) or not entries:
            return {"ok": False, "error": "invalid_arguments"}
        store, channel = self._file_store(), args.get("channel_id") or args.get("channels")
        found = [store.get(str(e.get("id"))) if isinstance(e, dict) else None for e in entries]
        if any(f is None or f.data is None for f in found):
            return {"ok": False, "error": "file_not_found"}
        shared: list[dict[str, Any]] = []
        for entry, upload in zip(entries, found, strict=True):
            assert upload is not None  # checked above
            upload.completed, upload.title = True, entry.get("title") or upload.filename
            upload.channel, upload.thread_ts = channel and str(channel), args.get("thread_ts")
            shared.append(
                {"id": upload.id, "name": upload.filename, "title": upload.title,
                 "size": upload.length, "channels": [upload.channel] if channel else []}
            )  # fmt: skip
        if channel:
            ts = self._next_ts()
            message = {"type": "message", "user": BOT_USER_ID, "bot_id": BOT_ID, "ts": ts,
                       "text": args.get("initial_comment", ""), "files": shared}  # fmt: skip
            if args.get("thread_ts"):
                message["thread_ts"] = args["thread_ts"]
            self._messages[str(channel), ts] = message
        return {"ok": True, "files": shared}

    def _unknown_slack_files(self, method: str, args: dict[str, Any]) -> list[str]:
        """Image blocks whose `slack_file` this channel cannot see (Slack: invalid_blocks)."""
        if method not in _MESSAGE_METHODS or not isinstance(args.get("blocks"), list):
            return []
        store, channel = self._file_store(), args.get("channel")
        problems = []
        for index, block in enumerate(args["blocks"]):
            ref = block.get("slack_file") if isinstance(block, dict) else None
            if not isinstance(ref, dict):
                continue
            upload = store.get(str(ref.get("id")))
            if upload is None or not upload.completed or upload.channel != channel:
                problems.append(f"invalid slack file [json-pointer:/blocks/{index}/slack_file]")
        return problems

    def _set_status(self, args: dict[str, Any]) -> dict[str, Any]:
        """`assistant.threads.setStatus`: needs a channel, a thread and a status (may be "")."""
        if not args.get("channel_id") or not args.get("thread_ts") or "status" not in args:
            return {"ok": False, "error": "invalid_arguments"}
        return {"ok": True}


_METHODS: dict[str, Callable[[FakeSlack, dict[str, Any]], dict[str, Any]]] = {
    "auth.test": FakeSlack._auth_test,
    "chat.postMessage": FakeSlack._post_message,
    "chat.update": FakeSlack._update,
    "chat.postEphemeral": FakeSlack._post_ephemeral,
    "chat.delete": FakeSlack._delete,
    "conversations.info": FakeSlack._conversations_info,
    "conversations.replies": FakeSlack._conversations_replies,
    "conversations.history": FakeSlack._conversations_history,
    "users.info": FakeSlack._users_info,
    "files.getUploadURLExternal": FakeSlack._get_upload_url,
    "files.completeUploadExternal": FakeSlack._complete_upload,
    "assistant.threads.setStatus": FakeSlack._set_status,
}


def _scripted(method: str, script: _Script) -> _Answer:
    if method == RESPONSE_URL:
        return _Answer(script.status, script.error or "error", delay=script.delay)
    if script.status == HTTPStatus.TOO_MANY_REQUESTS:
        return _Answer(
            script.status,
            {"ok": False, "error": script.error or "ratelimited"},
            {"Retry-After": str(script.retry_after)},
            script.delay,
        )
    default = "internal_error" if script.status >= HTTPStatus.INTERNAL_SERVER_ERROR else "error"
    return _Answer(script.status, {"ok": False, "error": script.error or default}, {}, script.delay)


class _Server(ThreadingHTTPServer):
    """Threading server that remembers open connections so `stop()` can close idle ones."""

    daemon_threads = False
    block_on_close = True
    request_queue_size = 128  # socketserver's default of 5 drops bursts of parallel connects

    def __init__(self, address: tuple[str, int], handler: type[_Handler], fake: FakeSlack) -> None:
        self.fake = fake
        self._connections: set[socket.socket] = set()
        self._connections_lock = threading.Lock()
        super().__init__(address, handler)

    def track(self, connection: socket.socket, *, add: bool) -> None:
        with self._connections_lock:
            if add:
                self._connections.add(connection)
            else:
                self._connections.discard(connection)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that drops its connection (a killed bot) is not an error of the fake."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)

    def close_connections(self) -> None:
        with self._connections_lock:
            connections = list(self._connections)
        for connection in connections:
            with contextlib.suppress(OSError):  # already closed by the client
                connection.shutdown(socket.SHUT_RDWR)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 60  # an idle keep-alive connection is dropped after this many seconds
    server: _Server

    def setup(self) -> None:
        super().setup()
        # The head and the body of an answer are two writes: without this, Nagle holds the
        # body back until the client acknowledges the head, which a kept-alive connection
        # does ~40 ms later (delayed ACK). Slack answers at once; so does the fake.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.server.track(self.connection, add=True)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.track(self.connection, add=False)

    def log_message(self, *_args: Any) -> None:
        """Keep test output quiet; the fake records every call instead."""

    def do_GET(self) -> None:
        self._respond()

    def do_POST(self) -> None:
        self._respond()

    def _respond(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        headers = {name.lower(): value for name, value in self.headers.items()}
        peer = (str(self.client_address[0]), int(self.client_address[1]))
        answer = self.server.fake._handle(self.command, self.path, headers, raw, peer)
        if answer.delay > 0:
            self.server.fake.stopping.wait(answer.delay)
        if isinstance(answer.payload, str):
            data, content_type = answer.payload.encode(), "text/plain; charset=utf-8"
        else:
            data, content_type = (
                json.dumps(answer.payload).encode(),
                "application/json; charset=utf-8",
            )
        self.send_response(answer.status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in answer.headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
