"""Type-ahead: what the user sends while a turn runs waits in a queue (FIFO) instead of being
refused.

When the turn ends normally (``completed``) the first queued message is sent as the next turn,
then the next one after that turn, and so on. A turn that was interrupted, failed or hit the
max-turns guard keeps the queue but sends nothing by itself: a notice says so, and Enter on an
empty prompt sends the next one. A new conversation (or a resumed session) drops the queue,
with a notice; the prompt history still has every queued message.

With ``"ui": {"type_ahead": "next_tool_boundary"}`` every queued message is also in the agent's
inbox (``core.agent.inbox``): the running turn takes it after its current batch of tool results,
before the next model request, and says so with a ``user_injected`` event (``injected``). The
queue and the inbox hold the same messages under the same ids: editing or removing one
withdraws it from the inbox, and a message the inbox no longer has is already on its way to the
model (it cannot be edited any more).

The widget that shows the queue is ``QueuedMessages``; the app feeds this object its events.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal

from agent_tui.core.agent.inbox import Inbox
from agent_tui.ui.chat.notice import NoticeKind
from agent_tui.ui.common.format import plural

TypeAheadMode = Literal["after_turn", "next_tool_boundary"]


@dataclass(frozen=True)
class Queued:
    """One queued message."""

    id: str
    text: str


class TypeAhead:
    """The queue of messages typed during a turn, and what happens to them when it ends."""

    def __init__(
        self,
        mode: TypeAheadMode,
        inbox: Inbox,
        *,
        send: Callable[[str], bool],
        say: Callable[[str, NoticeKind], Awaitable[None]],
        warn: Callable[[str], None],
    ) -> None:
        """``send`` starts a turn (False when it cannot now); ``say`` adds a notice to the chat;
        ``warn`` shows a short-lived warning."""
        self.mode: TypeAheadMode = mode
        self.inbox = inbox
        self._send = send
        self._say = say
        self._warn = warn
        self.entries: list[Queued] = []
        self._ended: str | None = None
        self.listeners: list[Callable[[], None]] = []

    def __len__(self) -> int:
        return len(self.entries)

    @property
    def injects(self) -> bool:
        return self.mode == "next_tool_boundary"

    def _changed(self) -> None:
        for listener in self.listeners:
            listener()

    # -- the user --------------------------------------------------------------------------

    def add(self, text: str) -> Queued:
        """Queue ``text`` (a turn runs)."""
        entry = Queued(secrets.token_hex(4), text)
        if self.injects:
            self.inbox.put(text, entry.id)
        self.entries.append(entry)
        self._changed()
        return entry

    def take(self, id: str) -> Queued | None:
        """Remove the message ``id`` from the queue (to edit it, or drop it); None when it is
        not there, or the running turn has already taken it for the model."""
        entry = next((e for e in self.entries if e.id == id), None)
        if entry is None:
            return None
        if self.injects and not self.inbox.withdraw(id):
            self._warn("That message is already on its way to the model.")
            return None
        self.entries.remove(entry)
        self._changed()
        return entry

    def send_next(self) -> bool:
        """Send the first queued message now (the app is idle); False when there is none or it
        cannot be sent (it stays first)."""
        if not self.entries:
            return False
        entry = self.entries[0]
        if self.take(entry.id) is None:
            return False
        if self._send(entry.text):
            return True
        self.entries.insert(0, entry)
        if self.injects:  # back in the inbox, behind nothing that was before it
            rest = self.inbox.drain()
            for item in [entry, *(Queued(p.id, p.text) for p in rest)]:
                self.inbox.put(item.text, item.id)
        self._changed()
        return False

    # -- the turn --------------------------------------------------------------------------

    def injected(self, id: str | None) -> None:
        """The running turn took the message ``id`` at a tool boundary (``user_injected``)."""
        before = len(self.entries)
        self.entries = [e for e in self.entries if e.id != id]
        if len(self.entries) != before:
            self._changed()

    def ended(self, reason: str) -> None:
        """The turn's ``turn_end`` arrived with ``reason``."""
        self._ended = reason

    async def turn_over(self, busy: bool) -> None:
        """The agent worker finished (``busy``: another turn started meanwhile). After a
        completed turn the next message goes; after any other end the queue stays, said once."""
        if busy:
            return
        reason, self._ended = self._ended, None
        if not self.entries:
            return
        if reason == "completed":
            self.send_next()
            return
        self._changed()  # the widget's hint: kept, not sent by itself
        how = "interrupted" if reason == "interrupted" else "did not complete"
        await self._say(
            f"{plural(len(self.entries), 'queued message')} kept (the turn {how}) — "
            "Enter on an empty prompt sends the next, ↑ edits them",
            "info",
        )

    async def drop(self, why: str) -> None:
        """Forget every queued message (``why``: a new conversation starts)."""
        if not self.entries:
            return
        count = len(self.entries)
        for entry in self.entries:
            self.inbox.withdraw(entry.id)
        self.entries = []
        self._changed()
        await self._say(
            f"{plural(count, 'queued message')} dropped: {why} (↑ in the prompt recalls "
            f"{'it' if count == 1 else 'them'})",
            "warning",
        )
