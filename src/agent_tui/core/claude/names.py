"""Claude Code's tool names and input fields ↔ ours.

Claude Code calls the shell ``Bash`` with ``{"command": …}``, the file reader ``Read`` with
``{"file_path": …}``, and so on; our tools are ``run_shell``, ``read_file`` with ``path``. A
hook written for Claude Code matches and reads Claude Code's names, a rule string names Claude
Code's tools, and a model trained on Claude Code may send its field names: each goes through
this table, in one place.

A Claude Code tool with no counterpart here (``NotebookEdit``, ``WebSearch``…) maps to None:
callers say so instead of guessing. MCP tools are named alike in both (``mcp__server__tool``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any


@dataclass(frozen=True)
class ToolName:
    """One Claude Code tool and ours: ``fields`` maps Claude Code's input field names to ours
    (only those that differ)."""

    claude: str
    ours: str
    fields: MappingProxyType[str, str] = field(default_factory=lambda: MappingProxyType({}))


def _tool(claude: str, ours: str, **fields: str) -> ToolName:
    return ToolName(claude, ours, MappingProxyType(fields))


TOOLS: tuple[ToolName, ...] = (
    _tool("Bash", "run_shell"),
    _tool("Read", "read_file", file_path="path"),
    _tool("Write", "write_file", file_path="path"),
    _tool("Edit", "edit_file", file_path="path"),
    _tool("MultiEdit", "edit_file", file_path="path"),  # its edits: more_edits
    _tool("Glob", "glob"),
    _tool("Grep", "grep"),
    _tool("LS", "list_dir"),
    _tool("WebFetch", "web_fetch"),
    _tool("TodoWrite", "update_plan"),
    _tool("ExitPlanMode", "exit_plan_mode"),
    _tool("Task", "task"),
    _tool("Agent", "task"),
    _tool("Skill", "skill", skill="name"),
)
"""Every Claude Code tool that has a counterpart here. ``MultiEdit`` maps to ``edit_file``
(its first edit in ``edit_file``'s fields, the others in ``more_edits``, which the model is not
shown); ``Agent`` is the newer name of ``Task``. Each of our tools answers to these names as
calls too, with their input shapes (``core.tools.claude_calls``)."""

FILE_FIELD = "file_path"
UNMAPPED: frozenset[str] = frozenset(
    {
        "NotebookEdit",
        "NotebookRead",
        "WebSearch",
        "BashOutput",
        "KillShell",
        "KillBash",
        "SlashCommand",
    }
)
"""Claude Code tools with no counterpart here (yet): a rule or matcher naming one is said
once, never silently dropped."""

_BY_CLAUDE = {tool.claude: tool for tool in TOOLS}
_BY_OURS: dict[str, ToolName] = {}
for _entry in TOOLS:
    _BY_OURS.setdefault(_entry.ours, _entry)  # the first is the canonical Claude Code name


def is_mcp(name: str) -> bool:
    return name.startswith("mcp__")


def ours(claude: str) -> str | None:
    """Our tool for Claude Code's tool name ``claude`` (an MCP tool keeps its name); None
    when there is none. Our own names are accepted as they are."""
    if is_mcp(claude):
        return claude
    if claude in _BY_CLAUDE:
        return _BY_CLAUDE[claude].ours
    if claude in _BY_OURS:
        return claude
    return None


def claude_name(ours_name: str) -> str:
    """Claude Code's name for our tool ``ours_name`` (ours when Claude Code has none)."""
    entry = _BY_OURS.get(ours_name)
    return entry.claude if entry is not None else ours_name


def claude_input(ours_name: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    """``tool_input`` of our tool ``ours_name`` with Claude Code's field names (for hooks)."""
    entry = _BY_OURS.get(ours_name)
    if entry is None or not entry.fields:
        return dict(tool_input)
    back = {ours_field: claude_field for claude_field, ours_field in entry.fields.items()}
    return {back.get(key, key): value for key, value in tool_input.items()}


MORE_EDITS = "more_edits"
"""``edit_file``'s further edits (``core.tools.builtin.edit_file``): a call that has them is
Claude Code's ``MultiEdit``."""
_EDIT_FIELDS = ("old_string", "new_string", "replace_all")


def claude_call(ours_name: str, tool_input: dict[str, Any], cwd: str) -> tuple[str, dict[str, Any]]:
    """Claude Code's tool name and input for our call, as its hooks and transcript show them:
    an ``edit_file`` call given ``more_edits`` (a ``MultiEdit``, even of one edit) is
    ``MultiEdit`` ``{file_path, edits: [...]}``; a ``file_path`` of a mapped tool absolute
    (``cwd``: what a relative one is relative to); a ``run_shell`` timeout in milliseconds; our
    plan as ``TodoWrite``'s ``todos``. A call the model made in Claude Code's own name
    (``Bash``) is already in its shape: kept as it is."""
    more = tool_input.get(MORE_EDITS)
    if ours_name == "edit_file" and isinstance(more, list):
        first = {key: tool_input[key] for key in _EDIT_FIELDS if key in tool_input}
        rest = {k: v for k, v in tool_input.items() if k not in _EDIT_FIELDS and k != MORE_EDITS}
        name, shown = "MultiEdit", {**claude_input(ours_name, rest), "edits": [first, *more]}
    else:
        name, shown = claude_name(ours_name), claude_input(ours_name, tool_input)
    path = shown.get(FILE_FIELD)
    if isinstance(path, str) and path and name != ours_name:
        shown[FILE_FIELD] = path if os.path.isabs(path) else os.path.join(cwd, path)
    if ours_name == "run_shell" and isinstance(shown.get("timeout"), int | float):
        shown["timeout"] = round(shown["timeout"] * 1000)  # Claude Code's are milliseconds
    if ours_name == "update_plan" and isinstance(shown.get("plan"), list):
        shown = {"todos": [_todo(item) for item in shown["plan"]]}
    return name, shown


def _todo(item: Any) -> Any:
    """One step of our plan as a ``TodoWrite`` todo (``activeForm``: its text)."""
    if not isinstance(item, dict):
        return item
    content = item.get("content", item.get("step", ""))
    return {"content": content, "status": item.get("status", "pending"), "activeForm": content}


def our_input(ours_name: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    """``tool_input`` given in Claude Code's field names (a hook's ``updatedInput``, a model
    trained on Claude Code) with ours; a field given both ways keeps ours."""
    entry = _BY_OURS.get(ours_name)
    if entry is None or not entry.fields:
        return dict(tool_input)
    out: dict[str, Any] = {}
    for key, value in tool_input.items():
        mapped = entry.fields.get(key, key)
        if mapped in out and mapped != key:
            continue
        out[mapped] = value
    return out
