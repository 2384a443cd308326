"""``session/load`` and ``session/list`` on our session store.

A loaded session is told again to the client as the updates a live turn sent
(``core.conversation.replay``: the events the TUI replays, fed to the same ``TurnUpdates``):
each user message as a ``user_message_chunk``, the answers, every tool call with how it
ended, the plan. Edits replay without their diff (the file as it was is not kept in the
transcript; the checkpoints are for rewinding, not for showing). ``listing`` reads only the
header line of each session file, newest first, a page at a time.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from acp.schema import SessionInfo, TextContentBlock, UserMessageChunk

from agent_tui.acp.updates import TurnUpdates
from agent_tui.core.conversation.replay import transcript_events
from agent_tui.core.conversation.session_read import read_header
from agent_tui.core.conversation.session_store import SessionStore
from agent_tui.core.events import UserInjected, UserMessage
from agent_tui.core.transcript import Message

PAGE = 50
"""Sessions per ``session/list`` page."""


def replay(messages: list[Message], cwd: Path) -> Iterator[Any]:
    """The updates that tell ``messages`` again, in order."""
    turn = TurnUpdates(cwd)
    for event in transcript_events(messages):
        if isinstance(event, UserMessage | UserInjected):
            yield UserMessageChunk(
                session_update="user_message_chunk",
                content=TextContentBlock(type="text", text=event.text),
            )
            continue
        yield from turn.updates(event)


def listing(
    store: SessionStore, cwd: str | None, cursor: str | None
) -> tuple[list[SessionInfo], str | None]:
    """A page of saved sessions (of ``cwd`` when given), newest first, and the cursor of the
    next page (None: the last). Blocking: it reads the files' first lines."""
    start = int(cursor) if cursor and cursor.isdigit() else 0
    wanted = os.path.realpath(cwd) if cwd else None
    found: list[SessionInfo] = []
    paths = store.all()
    index = start
    while index < len(paths) and len(found) < PAGE:
        path = paths[index]
        index += 1
        meta = read_header(path)
        if meta is None or not isinstance(meta.get("id"), str):
            continue
        where = str(meta.get("cwd", ""))
        if wanted is not None and os.path.realpath(where) != wanted:
            continue
        try:
            changed = datetime.fromtimestamp(path.stat().st_mtime, UTC).isoformat()
        except OSError:
            changed = None
        found.append(SessionInfo(session_id=meta["id"], cwd=where, updated_at=changed))
    return found, (str(index) if index < len(paths) else None)
