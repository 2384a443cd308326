"""``session/load`` and ``session/list`` on our session store.

A loaded session is told again to the client as the updates a live turn sent
(``core.conversation.replay``: the events the TUI replays, fed to the same ``TurnUpdates``):
each user message as a ``user_message_chunk``, the answers, every tool call with how it
ended, the plan. An edit replays with its diff when the session's checkpoints hold the file's
text before and after it (``edit_history``); when they do not, its result says why instead.
``listing`` reads only the header line of each session file, newest first, a page at a time.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp.schema import (
    ContentToolCallContent,
    SessionInfo,
    TextContentBlock,
    ToolCallProgress,
    UserMessageChunk,
)

from agent_tui.acp.edit_history import EditDiff, edit_diffs
from agent_tui.acp.updates import FileEdit, TurnUpdates
from agent_tui.core.conversation.replay import transcript_events
from agent_tui.core.conversation.session_read import read_header
from agent_tui.core.conversation.session_store import SessionStore
from agent_tui.core.events import ToolResult, ToolUse, UserInjected, UserMessage
from agent_tui.core.transcript import Message

if TYPE_CHECKING:
    from agent_tui.core.agent.agent import Agent
    from agent_tui.core.conversation.session import SessionLog

PAGE = 50
"""Sessions per ``session/list`` page."""


async def replayed(agent: Agent) -> list[Any]:
    """The updates that tell ``agent``'s conversation again (its checkpoints read in a
    thread, for the diffs of its edits)."""
    messages = agent.history()
    return await asyncio.to_thread(lambda: list(replay(messages, Path(agent.cwd), agent.session)))


def replay(messages: list[Message], cwd: Path, session: SessionLog | None = None) -> Iterator[Any]:
    """The updates that tell ``messages`` again, in order; ``session``: where the edits'
    checkpoints are (blocking: it reads them)."""
    turn = TurnUpdates(cwd)
    diffs: dict[str, EditDiff] = {}
    if session is not None:
        diffs = edit_diffs(messages, session.entries, session.blobs, cwd)
    for event in transcript_events(messages):
        if isinstance(event, UserMessage | UserInjected):
            yield UserMessageChunk(
                session_update="user_message_chunk",
                content=TextContentBlock(type="text", text=event.text),
            )
            continue
        diff = diffs.get(event.id) if isinstance(event, ToolUse | ToolResult) else None
        if diff is None or diff.missing is not None:
            for update in turn.updates(event):
                yield _noted(update, diff) if isinstance(event, ToolResult) else update
            continue
        if isinstance(event, ToolUse):
            turn.edits[event.id] = FileEdit(diff.path, diff.before)
        yield from turn.updates(event, diff.after)


def _noted(update: Any, diff: EditDiff | None) -> Any:
    """An edit's result without its diff, saying why."""
    if diff is None or diff.missing is None or not isinstance(update, ToolCallProgress):
        return update
    note = ContentToolCallContent(
        type="content",
        content=TextContentBlock(type="text", text=f"[no diff: {diff.missing}]"),
    )
    return update.model_copy(update={"content": [note, *(update.content or [])]})


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
