"""Our transcript's messages as lines of Claude Code's transcript (what its hooks read).

Claude Code keeps a session as JSONL, one entry a line: ``type`` (``user``, ``assistant``),
``message`` in the Messages API's shape (``role``, ``content``), and the envelope ``uuid``,
``parentUuid`` (the entry before it in the conversation), ``sessionId``, ``timestamp``,
``cwd``, ``isSidechain``, ``userType``, ``version``. Hooks read it for the last assistant
text (``content`` blocks ``{"type": "text", "text": …}``), the calls made (``tool_use``
blocks with ``id``, ``name``, ``input``) and their results (``tool_result`` blocks, in
``user`` entries, with ``tool_use_id``, ``content``, ``is_error``).

Mapped here, as Claude Code writes them: a prompt is a ``user`` entry whose ``content`` is the
prompt's text as typed (a string, as Claude Code writes a prompt); a reply is an ``assistant``
entry with a ``text`` block (when it said something) and a ``tool_use`` block per call, named
and filled in Claude Code's names (``core.claude.names``: ``Bash`` with ``command``, ``Read``
with an absolute ``file_path``…); each result is a ``user`` entry with one ``tool_result``
block; a compaction's summary is a ``user`` entry marked ``isCompactSummary`` that starts a new
chain (``parentUuid`` null), as Claude Code's does. A rewind makes the next entry's parent the
last one kept, as Claude Code branches. What Claude Code keeps and we do not is left out
(``requestId``, ``gitBranch``, thinking blocks); ``timestamp`` is when the line was written.
``uuid`` is derived from the session and the entry's place, so a rebuilt export has the same
ids.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from agent_tui import __version__
from agent_tui.core.claude.names import claude_call
from agent_tui.core.transcript import Message

_NAMESPACE = uuid.UUID("6f1c2b8e-4d0a-4f43-9a57-1c3e5b7d9f20")


def message_bodies(message: Message, cwd: str) -> list[dict[str, Any]]:
    """The entries (without their envelope) Claude Code would write for ``message``."""
    if message.role == "user":
        body: dict[str, Any] = {
            "type": "user",
            "message": {"role": "user", "content": message.prompt},
        }
        if message.compaction is not None:
            body |= {"isCompactSummary": True, "isVisibleInTranscriptOnly": True}
        return [body]
    if message.role == "tool":
        result: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": message.tool_call_id or "",
            "content": message.content,
        }
        if message.is_error:
            result["is_error"] = True
        return [{"type": "user", "message": {"role": "user", "content": [result]}}]
    blocks: list[dict[str, Any]] = []
    if message.content:
        blocks.append({"type": "text", "text": message.content})
    for call in message.tool_calls:
        name, shown = claude_call(call.name, call.parsed_arguments() or {}, cwd)
        blocks.append({"type": "tool_use", "id": call.id, "name": name, "input": shown})
    reply: dict[str, Any] = {"role": "assistant", "type": "message", "content": blocks}
    reply["stop_reason"] = "tool_use" if message.tool_calls else "end_turn"
    if message.usage is not None:
        reply["usage"] = {
            "input_tokens": message.usage.input_tokens,
            "output_tokens": message.usage.output_tokens,
            "cache_read_input_tokens": message.usage.cache_read_tokens,
        }
    return [{"type": "assistant", "message": reply}]


@dataclass
class Chain:
    """The ids of a session's Claude Code entries as they are written: each entry's parent is
    the entry before it in the conversation (``live``: one id per message of our transcript,
    as it stands, so that a rewind or a compaction moves the chain as it moves the
    transcript)."""

    session_id: str
    cwd: str
    made: int = 0
    """Entries made so far: the place the next entry's id is derived from."""
    live: list[str] = field(default_factory=list)
    """The id of the last entry of each message of the transcript as it stands."""

    def message(self, message: Message, now: str | None = None) -> list[dict[str, Any]]:
        """The entries of ``message`` appended to the transcript, with their envelope."""
        bodies = message_bodies(message, self.cwd)
        stamp = now or timestamp()
        if message.compaction is not None:
            parent = None
            kept = self.live[message.compaction.folded :]
        else:
            parent = self.live[-1] if self.live else None
            kept = self.live
        out: list[dict[str, Any]] = []
        for body in bodies:
            made = str(uuid.uuid5(_NAMESPACE, f"{self.session_id}:{self.made}"))
            self.made += 1
            out.append(
                {
                    "parentUuid": parent,
                    "isSidechain": False,
                    "userType": "external",
                    "cwd": self.cwd,
                    "sessionId": self.session_id,
                    "version": __version__,
                    **body,
                    "uuid": made,
                    "timestamp": stamp,
                }
            )
            parent = made
        if message.compaction is not None:
            self.live = [out[-1]["uuid"], *kept]
        else:
            self.live.append(out[-1]["uuid"])
        return out

    def rewound(self, messages: int) -> None:
        """The transcript was cut to its first ``messages``: the next entry follows the last
        one kept (a branch, as in Claude Code; the cut entries stay in the file)."""
        del self.live[messages:]


def timestamp() -> str:
    """Now, as Claude Code writes it: UTC, milliseconds, ``Z``."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


__all__ = ["Chain", "message_bodies", "timestamp"]
