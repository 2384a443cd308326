"""A tool call as the model made it, token usage, and the facts a tool reports about what came
of a call: the small typed vocabulary the transcript, the events and the tools share.

``ResultFacts`` is written by the tool (``ToolOutput.summary``/``facts``), carried by the
``tool_result`` event and kept in the transcript, so every front end — the lane live, the lane
after a resume, headless JSON — shows the same outcome without reading the tool's prose.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from agent_tui.core.empty import empty_list
from agent_tui.core.text.call_summary import summarize_input
from agent_tui.core.text.clean_str import CleanJsonStr, CleanStr
from agent_tui.core.text.utf8 import clean

DEFERRED = ConfigDict(defer_build=True)
"""The models' config: each builds its validator on first use, not at import (a run uses few
of them; every start pays for the import: issue 45)."""


class ToolCall(BaseModel):
    """One call the model asked for. ``arguments`` is the raw JSON text as received, a lone
    surrogate in it written as its ``\\uXXXX`` escape (so it can be sent again as UTF-8)."""

    model_config = DEFERRED

    id: CleanStr
    name: CleanStr
    arguments: CleanJsonStr = "{}"

    def parsed_arguments(self) -> dict[str, Any] | None:
        """The arguments as an object, or None when they are not a JSON object; a lone
        surrogate in them is cleaned (``core.text``), as it is shown and sent. (Dispatch
        parses them itself and refuses such a call.)"""
        try:
            value = json.loads(self.arguments or "{}")
        except (json.JSONDecodeError, TypeError):
            return None
        return clean(value) if isinstance(value, dict) else None


def call_summary(call: ToolCall) -> str:
    """The summary of a call as the model sent it (what its card shows, what a spill keeps)."""
    return summarize_input(call.parsed_arguments(), call.arguments)


class Usage(BaseModel):
    """Token counts for one model request (or a running total)."""

    model_config = DEFERRED

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def __add__(self, other: Usage) -> Usage:
        # sums of validated ints: nothing to validate (a resume adds thousands of them)
        return Usage.model_construct(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
        )


class ResultFacts(BaseModel):
    """What a finished call found or did, in numbers (each ``None`` when it does not apply)."""

    model_config = DEFERRED

    first: int | None = None
    """First line shown (read_file)."""
    last: int | None = None
    total_lines: int | None = None
    """Lines in the file read (read_file)."""
    exit_code: int | None = None
    added: int | None = None
    """Lines added by a write or an edit."""
    removed: int | None = None
    created: bool | None = None
    """The write created the file."""
    files: int | None = None
    """Files found (glob)."""
    matches: int | None = None
    """Matches found (grep); ``truncated`` when there were more."""
    entries: int | None = None
    """Directory entries listed (list_dir)."""
    withheld: int | None = None
    """Files a read rule kept out of the answer."""
    truncated: bool | None = None
    sandboxed: bool | None = None
    """The command ran in the OS sandbox (run_shell; False: it ran unconfined)."""
    network: bool | None = None
    """It had the network (run_shell)."""
    blocked: str | None = None
    """What the sandbox refused it, and what would allow it (one sentence)."""


class SubagentCall(BaseModel):
    """One call a subagent made (``task``), as its card lists it: kept with the parent's
    result so a resumed session shows the same card."""

    model_config = DEFERRED

    id: str
    name: str
    input: dict[str, Any] | None = None
    read_only: bool = False
    outcome: Literal["ok", "failed", "error", "rejected", "interrupted"] = "ok"
    summary: str = ""
    """One line: what came of it (the child's result summary, error or rejection)."""


class SubagentReport(BaseModel):
    """What a ``task`` call's child agent did: its name, its calls, the tokens it used, how
    many model requests it made and how its turn ended."""

    model_config = DEFERRED

    agent: str
    calls: list[SubagentCall] = Field(default_factory=empty_list)
    usage: Usage = Field(default_factory=Usage)
    requests: int = 0
    reason: str = "completed"
    """The child's ``turn_end`` reason (completed, max_turns, interrupted, error)."""


WaitSign = Literal["progress", "log", "output"]
"""A sign of life of an MCP server working on a call: a progress notification for the call,
a log message, or output (stderr, or stdout lines that are not JSON-RPC)."""


class ServerWait(BaseModel):
    """A call waiting on an MCP server that is still working on it, in numbers: the front end
    words it ("waiting for server fetch · 42 s · last progress 3 s ago: Installing…"), never
    the core. Times are seconds at the report; a front end adds the time since."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    server: str
    waited: float
    """Seconds the server has had the call."""
    quiet: float
    """Seconds since its last sign of life (``waited`` when there was none yet)."""
    sign: WaitSign | None = None
    """What that last sign was; None: none yet."""
    said: str | None = None
    """Its text (the progress or log message, the output line), shortened; None: none."""
    idle_timeout: float
    """The call fails after this many quiet seconds (the entry's ``timeout``)."""
    limit: float
    """The call fails when ``waited`` reaches this, signs of life or not
    (``max_total_timeout``)."""
