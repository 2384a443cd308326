"""Calls by Claude Code's tool names (``Bash``, ``Read``, ``MultiEdit``…) with its input shapes:
each prepares as the call of our tool with our fields, the schemas the model sees are ours, and
a field whose meaning we cannot give is refused by name."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent_tui.core.claude import names
from agent_tui.core.tools.builtin import default_registry
from agent_tui.core.tools.errors import ToolErrorInfo
from agent_tui.core.tools.registry import PreparedCall, ToolRegistry
from agent_tui.core.transcript import ToolCall

TODOS = [{"content": "Fix it", "status": "in_progress", "activeForm": "Fixing it"}]

CASES: list[tuple[str, dict[str, Any], str, dict[str, Any]]] = [
    (
        "Bash",
        {"command": "ls", "timeout": 90000, "description": "List files"},
        "run_shell",
        {"command": "ls", "timeout": 90.0},
    ),
    ("Bash", {"command": "ls", "run_in_background": False}, "run_shell", {"command": "ls"}),
    (
        "Bash",
        {"command": "make", "run_in_background": True},
        "run_shell",
        {"command": "make", "run_in_background": True},
    ),
    (
        "Read",
        {"file_path": "a.txt", "offset": 10, "limit": 5},
        "read_file",
        {"path": "a.txt", "offset": 10, "limit": 5},
    ),
    ("Read", {"file_path": "a.txt", "offset": 0}, "read_file", {"path": "a.txt"}),
    (
        "Write",
        {"file_path": "a.txt", "content": "x\n"},
        "write_file",
        {"path": "a.txt", "content": "x\n"},
    ),
    (
        "Edit",
        {"file_path": "a.txt", "old_string": "a", "new_string": "b", "replace_all": True},
        "edit_file",
        {"path": "a.txt", "old_string": "a", "new_string": "b", "replace_all": True},
    ),
    (
        "MultiEdit",
        {
            "file_path": "a.txt",
            "edits": [
                {"old_string": "a", "new_string": "b"},
                {"old_string": "c", "new_string": "d", "replace_all": True},
            ],
        },
        "edit_file",
        {
            "path": "a.txt",
            "old_string": "a",
            "new_string": "b",
            "more_edits": [{"old_string": "c", "new_string": "d", "replace_all": True}],
        },
    ),
    ("Glob", {"pattern": "**/*.py", "path": "src"}, "glob", {"pattern": "**/*.py", "path": "src"}),
    (
        "Grep",
        {
            "pattern": "TODO",
            "path": "src",
            "type": "py",
            "-i": True,
            "-n": True,
            "output_mode": "content",
            "head_limit": 20,
        },
        "grep",
        {"pattern": "TODO", "path": "src", "glob": "*.{py,pyi}", "ignore_case": True},
    ),
    ("Grep", {"pattern": "x", "glob": "*.md"}, "grep", {"pattern": "x", "glob": "*.md"}),
    ("LS", {"path": "src", "ignore": ["*.pyc"]}, "list_dir", {"path": "src"}),
    (
        "WebFetch",
        {"url": "https://example.com/", "prompt": "What is the title?"},
        "web_fetch",
        {"url": "https://example.com/"},
    ),
    (
        "TodoWrite",
        {"todos": TODOS},
        "update_plan",
        {"plan": [{"content": "Fix it", "status": "in_progress"}]},
    ),
]


@pytest.mark.parametrize(
    ("claude", "arguments", "ours", "want"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)]
)
def test_a_claude_code_call_prepares_as_ours(
    claude: str, arguments: dict[str, Any], ours: str, want: dict[str, Any]
) -> None:
    registry = default_registry()
    prepared = registry.prepare(claude, json.dumps(arguments))
    assert isinstance(prepared, PreparedCall), prepared
    assert prepared.tool.name == ours
    direct = registry.prepare(ours, json.dumps(want))
    assert isinstance(direct, PreparedCall), direct
    assert prepared.input == direct.input
    shown = registry.as_ours(ToolCall(id="c", name=claude, arguments=json.dumps(arguments)))
    assert shown.name == ours
    assert shown.parsed_arguments() == want


REFUSED: list[tuple[str, dict[str, Any], str]] = [
    ("Bash", {"command": "make", "timeout": 900000}, "timeout"),
    ("Bash", {"command": "make", "timeout": 0}, "timeout"),
    ("Bash", {"command": "make", "dangerouslyDisableSandbox": True}, "dangerouslyDisableSandbox"),
    ("Grep", {"pattern": "x", "-A": 3}, "-A"),
    ("Grep", {"pattern": "x", "-C": 2}, "-C"),
    ("Grep", {"pattern": "x", "multiline": True}, "multiline"),
    ("Grep", {"pattern": "x", "output_mode": "count"}, "output_mode"),
    ("Grep", {"pattern": "x", "type": "cobol"}, "type"),
    ("Grep", {"pattern": "x", "type": "py", "glob": "*.md"}, "type"),
    ("Read", {"file_path": "a.pdf", "pages": "1-3"}, "pages"),
    ("MultiEdit", {"file_path": "a.txt", "edits": []}, "edits"),
    ("MultiEdit", {"file_path": "a.txt", "edits": [{"old_string": "a", "new": "b"}]}, "new"),
    (
        "MultiEdit",
        {"file_path": "a.txt", "edits": [{"old_string": "a", "new_string": "b"}, {"with": "c"}]},
        "with",
    ),
    (
        "MultiEdit",
        {"file_path": "a.txt", "edits": [{"old_string": "a", "new_string": "b"}, "c"]},
        "edits[1]",
    ),
    ("Task", {"description": "d", "prompt": "p", "run_in_background": True}, "run_in_background"),
]


@pytest.mark.parametrize(
    ("claude", "arguments", "field"), REFUSED, ids=[f"{r[0]}-{i}" for i, r in enumerate(REFUSED)]
)
def test_a_field_with_no_equivalent_is_refused_by_name(
    claude: str, arguments: dict[str, Any], field: str
) -> None:
    """Never run without it: the error names the field and says why and what to do."""
    registry = default_registry()
    if claude == "Task":
        registry = _with_task(registry)
    error = registry.prepare(claude, json.dumps(arguments))
    assert isinstance(error, ToolErrorInfo), error
    assert error.code == "invalid_arguments"
    assert any(
        detail.startswith(f"$.{field}") or f".{field}:" in detail for detail in error.details
    ), error
    assert field in error.message or any(field in d for d in error.details)


def test_bash_timeout_is_read_in_milliseconds() -> None:
    """Claude Code's 600000 ms is our 600 s (the most either allows); 1500 ms is 1.5 s."""
    registry = default_registry()
    for ms, seconds in ((600000, 600.0), (1500, 1.5)):
        prepared = registry.prepare("Bash", json.dumps({"command": "x", "timeout": ms}))
        assert isinstance(prepared, PreparedCall), prepared
        assert prepared.input.model_dump()["timeout"] == seconds


def test_an_unknown_field_is_still_refused() -> None:
    error = default_registry().prepare("Bash", json.dumps({"command": "x", "shell": "zsh"}))
    assert isinstance(error, ToolErrorInfo)
    assert any("$.shell" in detail for detail in error.details)


def test_the_schemas_the_model_sees_name_none_of_it() -> None:
    """No Claude Code name or field is shown: the tools arrays are ours alone."""
    registry = default_registry()
    for text in (registry.openai_tools_json(), registry.anthropic_tools_json()):
        for claude_only in ("Bash", "MultiEdit", "more_edits", "file_path", "todos"):
            assert claude_only not in text
    assert sorted(t["name"] for t in registry.anthropic_tools()) == registry.names()


def _with_task(registry: ToolRegistry) -> ToolRegistry:
    """The registry with a ``task`` tool of the real shape (the subagents' own input model and
    call names), whose call is never made here."""
    from agent_tui.core.subagents.tool import CLAUDE_CALLS, TaskInput
    from agent_tui.core.tools.base import Tool, ToolOutput

    async def never(inp: TaskInput, ctx: Any) -> ToolOutput:
        raise AssertionError("not called")

    registry.register(Tool("task", "Run a subagent.", TaskInput, never, call_aliases=CLAUDE_CALLS))
    return registry


@pytest.mark.parametrize("claude", ["Task", "Agent"])
def test_task_and_agent_are_the_task_tool(claude: str) -> None:
    registry = _with_task(default_registry())
    arguments = {"description": "Find it", "prompt": "Find the bug", "subagent_type": "reviewer"}
    prepared = registry.prepare(claude, json.dumps(arguments))
    assert isinstance(prepared, PreparedCall), prepared
    assert prepared.input.model_dump() == {
        "description": "Find it",
        "prompt": "Find the bug",
        "agent": "reviewer",
    }
    general = {**arguments, "subagent_type": "general-purpose"}
    prepared = registry.prepare(claude, json.dumps(general))
    assert isinstance(prepared, PreparedCall), prepared
    assert prepared.input.model_dump()["agent"] is None


def test_every_claude_code_tool_of_the_table_is_answered_by_ours() -> None:
    """``core.claude.names.TOOLS`` and the tools' call names agree (``core.tools`` cannot import
    that table; this holds them together): each Claude Code name is a call of its tool."""
    registry = _with_task(default_registry())
    tools = {tool.name: tool for tool in registry.tools()}
    for entry in names.TOOLS:
        if entry.ours == "skill":  # registered only with skills: tests/core/skills has its own
            continue
        tool = tools[entry.ours]
        assert tool.answers_to(entry.claude), entry
        assert registry.get(entry.claude) is tool
