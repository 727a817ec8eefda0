"""The console front end: the same conversation engine, replies rendered as text.

Type what you would type in Slack. Lines go to one thread until `/new`; a line starting
with `/runai-why` starts a new thread, as a slash command would; a number picks a button.
Later lines in a thread are plain replies, unless they start with `@` (a mention).
"""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable, Iterable, Mapping

from bot.conversation import (
    Choice,
    ConversationEngine,
    EvidenceReply,
    Incoming,
    Question,
    Reply,
    ReportReply,
    ThreadKey,
)
from bot.ops.observe import begin_request
from bot.render.clean import one_line
from bot.render.text import render_evidence_text, render_text, sanitize

__all__ = ["ConsoleResponder", "ConsoleSession", "render_reply"]

PROMPT = "you> "
BOT = "runai-why> "
PRIVATE = "(only you) "
_PICK_DIGITS = 3  # a button's number; anything longer is text for the engine
SHOW_ALL_HINT = "Reply `show logs` to see them all."


def render_reply(reply: Reply) -> str:
    """A reply as console text (the report exactly as `runai-why diagnose` prints it)."""
    if isinstance(reply, ReportReply):
        notes = "".join(f"\n({one_line(sanitize(n))})" for n in reply.notes)
        answer = render_text(reply.report, cluster_name=reply.cluster_name, more=SHOW_ALL_HINT)
        return answer + notes
    if isinstance(reply, EvidenceReply):
        return render_evidence_text(reply.report)
    if isinstance(reply, Question) and reply.picked is not None:
        who = f" (picked by {sanitize(reply.asker)})" if reply.asker else ""
        label = one_line(sanitize(reply.picked.label))
        return f"{sanitize(reply.text)}\n→ {label}{who}".strip()
    if isinstance(reply, Question):
        buttons = "".join(
            f"\n  [{i}] {one_line(sanitize(c.label))}" for i, c in enumerate(reply.choices, start=1)
        )
        hint = "\n  (type a number to pick)" if reply.choices else ""
        return sanitize(reply.text) + buttons + hint
    return sanitize(reply.text)


class ConsoleResponder:
    """Prints replies; an update prints the replacement under the same message number."""

    def __init__(self, write: Callable[[str], None]) -> None:
        self._write = write
        self._ids = itertools.count(1)
        self.choices: tuple[Choice, ...] = ()
        self.in_thread = False  # the bot posted publicly in the current thread

    def thread(self) -> str | None:
        """The console's threads are explicit (`/new`), never created by posting."""
        return None

    async def post(self, reply: Reply) -> str:
        """Print a new message."""
        ref = str(next(self._ids))
        self._show(reply)
        return ref

    async def update(self, ref: str, reply: Reply) -> None:
        """Print the message that replaces message `ref`."""
        del ref  # a terminal cannot edit what it printed; the replacement follows it
        self._show(reply)

    def _show(self, reply: Reply) -> None:
        self.choices = reply.choices if isinstance(reply, Question) else self.choices
        private = PRIVATE if reply.private else ""
        self.in_thread = self.in_thread or not reply.private
        if isinstance(reply, ReportReply | EvidenceReply):
            self._write(f"{BOT}{private}\n{render_reply(reply)}\n")
        else:
            self._write(f"{BOT}{private}{render_reply(reply)}\n")


class ConsoleSession:
    """One person chatting with the engine in a terminal (or from a script)."""

    def __init__(
        self,
        engine: ConversationEngine,
        write: Callable[[str], None],
        commands: Mapping[str, Callable[[str], Awaitable[None]]] | None = None,
    ) -> None:
        """`commands` are the demo's own (`/fail NAME`): a line starting with one runs it."""
        self._engine = engine
        self._write = write
        self._commands = dict(commands or {})
        self._responder = ConsoleResponder(write)
        self._threads = itertools.count(1)
        self._thread = self._new_thread()

    def _new_thread(self) -> ThreadKey:
        return ThreadKey(
            platform="console", team="local", channel="console", thread=str(next(self._threads))
        )

    async def say(self, line: str) -> None:
        """Handle one line the person typed."""
        text = line.strip()
        if not text or text.startswith("#"):
            return
        begin_request()  # each line is one request: its own ID on every log line
        if text == "/new":
            self._thread = self._new_thread()
            self._responder.choices = ()
            self._responder.in_thread = False
            self._write(f"{BOT}(new thread)\n")
            return
        word, _, rest = text.partition(" ")
        if word in self._commands:
            await self._commands[word](rest.strip())
            return
        if text.startswith("/runai-why"):
            self._thread = self._new_thread()
            self._responder.choices = ()
            self._responder.in_thread = False
            text = text.removeprefix("/runai-why").strip() or "help"
        # isdecimal, not isdigit: int("²") raises; and never int() of a long number (quadratic)
        if (
            text.isdecimal()
            and len(text) <= _PICK_DIGITS
            and 1 <= int(text) <= len(self._responder.choices)
        ):
            choice = self._responder.choices[int(text) - 1]
            self._responder.choices = ()
            await self._engine.handle(
                Incoming(self._thread, "you", choice=choice.value), self._responder
            )
            return
        # As in Slack: once the bot answered in the thread (publicly), later lines are plain
        # thread replies unless they mention the bot (`@runai-why ...`).
        replying = self._responder.in_thread
        directed = not replying or text.startswith("@")
        incoming = Incoming(self._thread, "you", text=text, directed=directed, bot_thread=replying)
        await self._engine.handle(incoming, self._responder)

    async def run_script(self, lines: Iterable[str]) -> None:
        """Replay lines as if typed, echoing each one."""
        for line in lines:
            if line.strip() and not line.lstrip().startswith("#"):
                self._write(f"{PROMPT}{line.strip()}\n")
            await self.say(line)
