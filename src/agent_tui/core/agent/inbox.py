"""The agent's inbox: messages the user typed while a turn runs, for the turn to take at its
next tool boundary.

A front end that injects type-ahead (the TUI with ``"ui": {"type_ahead":
"next_tool_boundary"}``) ``put``s each queued message here and ``withdraw``s it when the user
edits or removes it. The turn loop ``drain``s the inbox after the results of a batch of tool
calls are in the transcript and before the next model request: each message becomes a user
message of the same turn (``Message.injected``) and a ``user_injected`` event. What is still
here when a turn ends stays for the next turn's first boundary, unless the front end takes it.

Every method holds a lock, so a front end on another thread may use it too.
"""

from __future__ import annotations

import secrets
import threading
from dataclasses import dataclass


@dataclass(frozen=True)
class Pending:
    """A message waiting in the inbox; ``id`` names it for ``withdraw`` and in its event."""

    id: str
    text: str


class Inbox:
    """First in, first out; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._items: list[Pending] = []

    def put(self, text: str, id: str | None = None) -> str:
        """Add ``text`` at the end; returns its id (``id``, or a new one)."""
        item = Pending(id if id is not None else secrets.token_hex(4), text)
        with self._lock:
            self._items.append(item)
        return item.id

    def withdraw(self, id: str) -> bool:
        """Take the message ``id`` back; False when it is not here (a boundary took it)."""
        with self._lock:
            for index, item in enumerate(self._items):
                if item.id == id:
                    del self._items[index]
                    return True
        return False

    def drain(self) -> list[Pending]:
        """Every waiting message, oldest first; the inbox is empty afterwards."""
        with self._lock:
            items, self._items = self._items, []
        return items

    def pending(self) -> list[Pending]:
        """The waiting messages, oldest first (a copy; nothing is taken)."""
        with self._lock:
            return list(self._items)

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)
