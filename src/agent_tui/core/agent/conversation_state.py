"""The conversation one agent holds, shared by the agent and its collaborators.

``ConversationState`` is the session file (None: not saved), the transcript the model sees
(``messages``), what compactions took out of it (``folded``), the tokens used so far, and the
``SessionStart`` hooks still to run. ``append`` adds a message to the transcript and the
session file together. The ``Agent`` swaps the session (new, resume, fork); the turn appends,
a compaction folds, a rewind cuts: each through this one object, so they always agree.
"""

from __future__ import annotations

from typing import Literal

from agent_tui.core.conversation.session import SessionLog, session_usage
from agent_tui.core.images.store import ImageStore
from agent_tui.core.transcript import Message, Usage

StartSource = Literal["startup", "resume", "clear", "compact"]


class ConversationState:
    """The session, the transcript, what was folded, the usage."""

    def __init__(self, session: SessionLog | None) -> None:
        self.session = session
        self.messages: list[Message] = list(session.messages) if session else []
        self.folded: list[Message] = list(session.folded) if session else []
        """What compactions took out of ``messages``, oldest first."""
        self.usage: Usage = session_usage([*self.folded, *self.messages])
        self.start_source: StartSource | None = (
            "resume" if session and session.messages else "startup"
        )
        """The SessionStart hooks still to run, before the session's first turn (their
        context goes with its prompt): startup, resume, clear, compact (after a compaction);
        None once they ran."""
        self.images = ImageStore(lambda: self.session.images if self.session else None)
        """The images of the conversation, kept in the session in use (``core.images``)."""

    def append(self, message: Message) -> None:
        """Add ``message`` to the transcript, and to the session file when there is one."""
        self.messages.append(message)
        if self.session is not None:
            self.session.append(message)

    def history(self) -> list[Message]:
        """Every message as it happened: what compactions folded, then the transcript."""
        return [*self.folded, *self.messages]


__all__ = ["ConversationState", "StartSource"]
