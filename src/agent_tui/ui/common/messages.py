"""Messages the app sends to whichever screen is on top, so a screen learns about the session
without reaching into the app (the screens live in layers below it)."""

from __future__ import annotations

from textual.message import Message


class TranscriptChanged(Message):
    """The session's transcript changed: messages were added, or a new or resumed session
    replaced it (which spills live messages point to may have changed)."""
