"""A conversation as export entries: the stable shape of ``agent-tui export --format json``.

``export_doc(history, …)`` walks every message as it happened (what compactions folded, then
the transcript: ``Agent.history``) and gives, in order: each prompt the user typed, each
answer, each tool call of an answer with its input and the output the model saw (bounded as
the model saw it; a spilled output's file named, so nothing is lost), and each compaction
summary, marked as one. An image is named, never inlined: its name, type, dimensions, size and
the file the session keeps it in (``ImageEntry``). The shape is versioned (``VERSION``);
fields are only ever added.
"""

from __future__ import annotations

import os
from typing import Any, Literal

from pydantic import BaseModel, Field

from agent_tui.core.attachments import ImageRef, human_size
from agent_tui.core.budget.excerpt import pointer_in
from agent_tui.core.empty import empty_list
from agent_tui.core.events import SpillPointer, ToolErrorEvent, ToolRejected, ToolResult
from agent_tui.core.transcript import Message, ToolCall

VERSION = 1
"""The JSON shape's version: raised only when a field changes meaning or goes away."""

Outcome = Literal["ok", "failed", "rejected", "error", "no_result"]


class SpillRef(BaseModel):
    """Where a call's whole output was spilled (the model saw an excerpt and this path)."""

    path: str
    """As the model was told it (relative to the session's directory when inside it)."""
    abs_path: str
    chars: int
    lines: int
    reason: str


class ImageEntry(BaseModel):
    """An image sent with a prompt or a tool result (the bytes are not exported: ``path``)."""

    name: str
    media_type: str
    width: int
    height: int
    size: int
    digest: str
    path: str
    """Where the session keeps it (``<session>/images/<2 hex>/<62 hex>``); empty without a
    session file."""


class PromptEntry(BaseModel):
    kind: Literal["prompt"] = "prompt"
    text: str
    """What the user typed (files named with ``@`` are listed in ``mentions``, not pasted)."""
    mentions: list[str] = Field(default_factory=empty_list)
    images: list[ImageEntry] = Field(default_factory=empty_list)
    injected: bool = False
    """Typed while the turn ran, and sent into it."""


class AnswerEntry(BaseModel):
    kind: Literal["answer"] = "answer"
    text: str
    interrupted: bool = False
    cut_off: str | None = None
    """Why the reply stopped early (a failed stream), or None."""


class ToolCallEntry(BaseModel):
    kind: Literal["tool_call"] = "tool_call"
    id: str
    name: str
    input: dict[str, Any] | None
    """The arguments as an object; None when the model sent no JSON object (``raw_input``)."""
    raw_input: str
    outcome: Outcome
    summary: str = ""
    output: str = ""
    """What the model was sent back, exactly (an excerpt when the output was spilled)."""
    spill: SpillRef | None = None
    images: list[ImageEntry] = Field(default_factory=empty_list)


class CompactionEntry(BaseModel):
    kind: Literal["compaction"] = "compaction"
    reason: str
    folded: int
    """The messages the summary replaced (they are the entries before it)."""
    tokens_before: int = 0
    tokens_after: int = 0
    summary: str


Entry = PromptEntry | AnswerEntry | ToolCallEntry | CompactionEntry


class SessionInfo(BaseModel):
    id: str = ""
    model: str = ""
    cwd: str = ""
    created: str = ""
    file: str = ""
    """The session file (``agent-tui --resume`` takes it)."""


class ExportDoc(BaseModel):
    format: Literal["agent-tui-export"] = "agent-tui-export"
    version: int = VERSION
    exported_at: str
    session: SessionInfo
    entries: list[Entry]


def export_doc(history: list[Message], session: SessionInfo, exported_at: str) -> ExportDoc:
    """The export of ``history`` (every message as it happened, oldest first)."""
    entries: list[Entry] = []
    for index, message in enumerate(history):
        if message.role == "user" and message.compaction is not None:
            folding = message.compaction
            entries.append(
                CompactionEntry(
                    reason=folding.reason,
                    folded=folding.folded,
                    tokens_before=folding.tokens_before,
                    tokens_after=folding.tokens_after,
                    summary=message.content,
                )
            )
        elif message.role == "user":
            entries.append(
                PromptEntry(
                    text=message.prompt,
                    mentions=[m.path for m in message.mentions],
                    images=_images(message.images, session.file),
                    injected=message.injected,
                )
            )
        elif message.role == "assistant":
            if message.content.strip() or message.interrupted or message.cut_off:
                entries.append(
                    AnswerEntry(
                        text=message.content,
                        interrupted=message.interrupted,
                        cut_off=message.cut_off,
                    )
                )
            results = _results(history, index)
            for call in message.tool_calls:
                entries.append(_call(call, results.get(call.id), session))
    return ExportDoc(exported_at=exported_at, session=session, entries=entries)


def _results(history: list[Message], index: int) -> dict[str, Message]:
    """The tool messages that answer the calls of the assistant message at ``index``."""
    found: dict[str, Message] = {}
    for message in history[index + 1 :]:
        if message.role != "tool":
            break
        if message.tool_call_id is not None:
            found[message.tool_call_id] = message
    return found


def image_line(image: ImageEntry) -> str:
    """One image in Markdown: its name, what it is, and where the session keeps it."""
    kind = image.media_type.removeprefix("image/").upper()
    what = f"`{image.name}` ({kind}, {image.width}×{image.height}, {human_size(image.size)})"
    return what + (f", kept at `{image.path}`" if image.path else "")


def _images(refs: list[ImageRef], session_file: str) -> list[ImageEntry]:
    where = session_file.removesuffix(".jsonl")
    return [
        ImageEntry(
            name=ref.name,
            media_type=ref.media_type,
            width=ref.width,
            height=ref.height,
            size=ref.size,
            digest=ref.digest,
            path=os.path.join(where, "images", ref.digest[:2], ref.digest[2:]) if where else "",
        )
        for ref in refs
    ]


def _call(call: ToolCall, result: Message | None, session: SessionInfo) -> ToolCallEntry:
    cwd = session.cwd
    entry = ToolCallEntry(
        id=call.id,
        name=call.name,
        input=call.parsed_arguments(),
        raw_input=call.arguments,
        outcome="no_result",
    )
    if result is None:
        return entry
    end = result.record.end if result.record is not None else None
    outcome: Outcome = "failed" if result.is_error else "ok"
    summary = ""
    spill: SpillPointer | None = None
    if isinstance(end, ToolResult):
        outcome, summary, spill = ("failed" if end.is_error else "ok"), end.summary, end.spill
    elif isinstance(end, ToolRejected):
        outcome, summary = "rejected", end.reason
    elif isinstance(end, ToolErrorEvent):
        outcome, summary, spill = "error", f"{end.code}: {end.message}", end.spill
    if spill is None:
        spill = pointer_in(result.content)
    entry.outcome = outcome
    entry.summary = summary
    entry.output = result.content
    entry.images = _images(result.images, session.file)
    if spill is not None:
        where = os.path.join(cwd, spill.path) if cwd else spill.path
        entry.spill = SpillRef(
            path=spill.path,
            abs_path=os.path.normpath(where),
            chars=spill.chars,
            lines=spill.lines,
            reason=spill.reason,
        )
    return entry
