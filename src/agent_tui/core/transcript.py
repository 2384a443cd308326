"""Provider-neutral conversation messages: what the loop keeps and what providers translate."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from agent_tui.core.attachments import ImageRef, PreparedImage
from agent_tui.core.calls import ToolCall, Usage
from agent_tui.core.empty import empty_list
from agent_tui.core.events import Mention, ToolErrorEvent, ToolRejected, ToolResult
from agent_tui.core.text.clean_str import CleanStr

__all__ = ["CallRecord", "Folding", "Message", "Prompt", "ToolCall", "ToolEnd", "Usage"]

ToolEnd = Annotated[ToolResult | ToolRejected | ToolErrorEvent, Field(discriminator="type")]
"""The event a call ends with."""
INTERRUPTED_NOTE = "\n\n[interrupted by the user]"
"""Ends the text of a reply cut by an interrupt (``Message.interrupted``), for the model."""


def cut_off_note(reason: str) -> str:
    """Ends the text of a reply cut by a failure of its stream (``Message.cut_off``), for the
    model: what arrived is kept, and the model knows it was not the whole reply."""
    return f"\n\n[cut off: the response stopped here — {reason}]"


MAX_KEPT_DATA = 64 * 1024
"""Characters of a result's ``data`` (an edit's diff) the transcript keeps; beyond, the card of
a resumed session shows the summary and the output without it."""

DEFERRED = ConfigDict(defer_build=True)
"""The models' config: each builds its validator on first use, not at import (a run uses few
of them; every start pays for the import: issue 45)."""


class CallRecord(BaseModel):
    """How a call ended, kept with its result so a resumed session shows it exactly as the
    live one did: the final event (a result's text lives once, in the message's content), the
    ids of its parallel batch, and whether the call was read-only."""

    model_config = DEFERRED

    end: ToolEnd
    group: list[str] = Field(default_factory=empty_list)
    read_only: bool = False
    call: ToolCall | None = None
    """The call as it ran, when the model named our tool by another tool's name (Claude
    Code's ``Bash``): our name and fields, as its card showed them. The assistant message
    keeps the model's own call, which is what the model is sent again."""
    via: str | None = None
    """The proxy the model called it through (``run_tool``): ``call`` is its target, as the
    card showed it; the wire keeps the proxy call, which names a tool the request has."""

    @classmethod
    def of(
        cls,
        end: ToolEnd,
        *,
        group: list[str] | None = None,
        read_only: bool = False,
        call: ToolCall | None = None,
        via: str | None = None,
    ) -> CallRecord:
        if isinstance(end, ToolResult):
            data = end.data
            if data and len(json.dumps(data, default=str)) > MAX_KEPT_DATA:
                data = {}
            end = end.model_copy(update={"content": "", "data": data})
        return cls(end=end, group=list(group or []), read_only=read_only, call=call, via=via)

    def event(self, content: str) -> ToolEnd:
        """The final event as it was emitted (``content``: the message's text)."""
        if isinstance(self.end, ToolResult):
            return self.end.model_copy(update={"content": content})
        return self.end


class Folding(BaseModel):
    """What a compaction's summary message stands for."""

    model_config = DEFERRED

    folded: int
    """The messages it replaced."""
    kept: int = 0
    """The messages after it when it was made: the compaction happened after them (a resumed
    session shows it there, as the live one did)."""
    reason: Literal["manual", "threshold", "overflow"] = "manual"
    tokens_before: int = 0
    tokens_after: int = 0
    usage: Usage | None = None
    """What its summarizer requests cost (``Compacted.usage``)."""


@dataclass(frozen=True)
class Prompt:
    """A prompt with images attached to it (pasted, dropped, from the clipboard): what a front
    end hands ``Agent.run`` when there is more than text."""

    text: str
    images: tuple[PreparedImage, ...] = ()


class Message(BaseModel):
    """One entry of the transcript.

    ``role="tool"`` messages carry the result of the call ``tool_call_id``; ``is_error`` marks a
    failed call (both wire formats can say so).
    """

    model_config = DEFERRED

    role: Literal["user", "assistant", "tool"]
    content: CleanStr = ""
    """No lone surrogate in the transcript's text (``core.text``): what is sent to the model
    and saved must encode as UTF-8 — a session saved before this rule is cleaned as it is
    loaded (``CleanStr``: from Python input; JSON input holds none)."""
    tool_calls: list[ToolCall] = Field(default_factory=empty_list)
    tool_call_id: CleanStr | None = None
    name: CleanStr | None = None
    is_error: bool = False
    record: CallRecord | None = None
    """Tool messages: how the call ended (typed), for front ends; providers never send it."""
    usage: Usage | None = None
    """Assistant messages: the tokens of the request that produced it."""
    interrupted: bool = False
    """Assistant messages: the reply was cut by an interrupt."""
    cut_off: str | None = None
    """Assistant messages: the reply was cut by a failure of its stream (a reset connection,
    a timeout, malformed data): the error, as the user read it. What arrived is kept."""
    turn: str | None = None
    """User messages: the id of the agent turn they began, which names its checkpoint records
    in the session file (``core.checkpoints``); None in transcripts older than checkpoints."""
    injected: bool = False
    """User messages: typed while a turn ran and added to that turn after its tool results
    (``core.agent.inbox``), not the start of a turn of its own."""
    compaction: Folding | None = None
    """User messages: set on a compaction's summary (``core.conversation.compaction``), which
    stands for earlier messages of the transcript (they stay in the session file); None on a
    message the user wrote."""

    @property
    def folded(self) -> int:
        """How many earlier messages this summary stands for (0: not a summary)."""
        return self.compaction.folded if self.compaction is not None else 0

    typed: CleanStr | None = None
    """User messages with ``@`` mentions: the prompt as typed (``content`` is what the model
    gets: it with the mentioned files attached); None when the two are the same."""
    mentions: list[Mention] = Field(default_factory=empty_list)
    """User messages: the mentions of ``typed``, for the chat's chips."""
    images: list[ImageRef] = Field(default_factory=empty_list)
    """User and tool messages: the images sent with the text (``core.attachments``): their
    references only; the bytes are in the session's image store."""

    @property
    def prompt(self) -> str:
        """A user message's prompt as the user typed it."""
        return self.typed if self.typed is not None else self.content

    @classmethod
    def user(
        cls,
        text: str,
        *,
        turn: str | None = None,
        injected: bool = False,
        typed: CleanStr | None = None,
        mentions: list[Mention] | None = None,
        images: list[ImageRef] | None = None,
    ) -> Message:
        """``text``: what the model gets; ``typed``: the prompt, when it differs."""
        return cls(
            role="user",
            content=text,
            turn=turn,
            injected=injected,
            typed=typed,
            mentions=mentions or [],
            images=images or [],
        )

    @classmethod
    def assistant(
        cls,
        text: str,
        tool_calls: list[ToolCall] | None = None,
        *,
        usage: Usage | None = None,
        interrupted: bool = False,
        cut_off: str | None = None,
    ) -> Message:
        return cls(
            role="assistant",
            content=text,
            tool_calls=tool_calls or [],
            usage=usage,
            interrupted=interrupted,
            cut_off=cut_off,
        )

    @classmethod
    def tool(
        cls,
        call: ToolCall,
        content: str,
        *,
        is_error: bool = False,
        record: CallRecord | None = None,
        images: list[ImageRef] | None = None,
    ) -> Message:
        return cls(
            role="tool",
            content=content,
            tool_call_id=call.id,
            name=call.name,
            is_error=is_error,
            record=record,
            images=images or [],
        )
