"""What a hook reads on stdin, in Claude Code's shape, and a hook's rewrite read back.

Every event carries ``session_id``, ``transcript_path``, ``cwd``, ``hook_event_name`` and
``permission_mode`` (Claude Code's names: ``default``, ``acceptEdits``, ``plan``,
``bypassPermissions``). A tool event names the tool as Claude Code does (``Bash``, ``Read``,
``Write``, ``Edit``…; an MCP tool keeps ``mcp__server__tool``; a tool Claude Code has no
counterpart of keeps our name) with its input in Claude Code's field names (``file_path``,
absolute as there), through the one table ``core.claude.names``; a hook's ``updatedInput``
comes back through the same table to our field names.

``transcript_path`` is the session's JSONL file (our format, one message a line, not Claude
Code's). With no session file (a run that saves nothing, a file that could not be made) it is
``/dev/null``: a real file that reads empty, so a hook that opens it still runs.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from agent_tui.core.claude import names

CLAUDE_MODES: dict[str, str] = {
    "default": "default",
    "accept-edits": "acceptEdits",
    "plan": "plan",
    "bypass": "bypassPermissions",
}
"""Our permission modes and Claude Code's names for them."""
NO_TRANSCRIPT = os.devnull
FILE_FIELD = "file_path"


class SessionFile(Protocol):
    """What the payload needs of a session (``core.conversation.session.SessionLog``)."""

    @property
    def id(self) -> str: ...

    @property
    def path(self) -> Path: ...


@dataclass(frozen=True)
class SessionFacts:
    """The session a hook runs in, as every event tells it."""

    session_id: str = ""
    transcript_path: str = NO_TRANSCRIPT
    permission_mode: str = "default"

    @classmethod
    def of(cls, session: SessionFile | None, mode: object) -> SessionFacts:
        """The facts of ``session`` (None: not saved) in the permission mode ``mode`` (ours;
        an unknown one is ``default``)."""
        claude_mode = CLAUDE_MODES.get(str(mode), "default")
        if session is None:
            return cls(permission_mode=claude_mode)
        saved = session.path.is_file()  # a stat: the file is made with the session
        path = str(session.path) if saved else NO_TRANSCRIPT
        return cls(session.id, path, claude_mode)


def tool_fields(tool: str, tool_input: dict[str, Any], cwd: Path) -> dict[str, Any]:
    """``tool_name`` and ``tool_input`` of our call, as a Claude Code hook reads them."""
    name, shown = names.claude_call(tool, tool_input)
    path = shown.get(FILE_FIELD)
    if isinstance(path, str) and path and name != tool:
        shown[FILE_FIELD] = path if os.path.isabs(path) else os.path.join(cwd, path)
    return {"tool_name": name, "tool_input": shown}


def tool_response(fields: dict[str, Any], content: str) -> dict[str, Any]:
    """``tool_response`` of a call that succeeded: ours (``content``) with the fields Claude
    Code's hooks read of the same tools (``stdout`` of ``Bash``; ``filePath`` and ``success``
    of the file tools). ``fields``: what ``tool_fields`` gave for the call."""
    response: dict[str, Any] = {"content": content, "is_error": False}
    if fields.get("tool_name") == "Bash":
        response |= {"stdout": content, "stderr": "", "interrupted": False}
    path = fields.get("tool_input", {}).get(FILE_FIELD)
    if isinstance(path, str):
        response |= {"filePath": path, "success": True}
    return response


def our_fields(tool: str, updated: dict[str, Any]) -> dict[str, Any]:
    """A hook's ``updatedInput`` (Claude Code's field names, or ours) in our field names."""
    return names.our_input(tool, updated)


__all__ = [
    "CLAUDE_MODES",
    "NO_TRANSCRIPT",
    "SessionFacts",
    "our_fields",
    "tool_fields",
    "tool_response",
]
