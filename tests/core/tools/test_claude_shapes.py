"""Tool input in the shapes models trained on Claude Code send: ``file_path`` for the file
tools, ``{"todos": [...]}`` for the plan. Accepted before validation; the schema the model sees
is unchanged; what runs and what is judged has only our field names."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.claude import names
from agent_tui.core.text.call_summary import summarize_input
from agent_tui.core.tools.base import ToolContext
from agent_tui.core.tools.builtin import default_registry
from agent_tui.core.tools.errors import ToolErrorInfo
from agent_tui.core.tools.registry import PreparedCall, tool_schema


def _prepare(name: str, arguments: dict[str, Any]) -> PreparedCall:
    prepared = default_registry().prepare(name, json.dumps(arguments))
    assert isinstance(prepared, PreparedCall), prepared
    return prepared


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("read_file", {"file_path": "a.txt", "offset": 2, "limit": 5}),
        ("write_file", {"file_path": "a.txt", "content": "x\n"}),
        ("edit_file", {"file_path": "a.txt", "old_string": "a", "new_string": "b"}),
    ],
)
def test_file_path_is_read_as_path(tool: str, arguments: dict[str, Any]) -> None:
    dumped = _prepare(tool, arguments).input.model_dump()
    assert dumped["path"] == "a.txt"
    assert "file_path" not in dumped


def test_every_claude_field_name_of_ours_is_accepted() -> None:
    """The table of ``core.claude.names`` and the tools' own aliases agree: for each Claude
    Code tool whose fields differ from ours, a call in Claude Code's field names prepares as
    the same call in ours (``core.tools`` cannot import that table; this holds them together)."""
    registry = default_registry()
    samples = {"path": "a.txt", "content": "x\n", "old_string": "a", "new_string": "b"}
    checked = 0
    for entry in names.TOOLS:
        tool = registry.get(entry.ours)
        if not entry.fields or tool is None or entry.claude == "MultiEdit":
            continue
        required = tool_schema(tool).get("required", [])
        ours = {key: samples[key] for key in required}
        theirs = names.claude_input(entry.ours, ours)
        assert theirs != ours
        got = registry.prepare(entry.ours, json.dumps(theirs))
        want = registry.prepare(entry.ours, json.dumps(ours))
        assert isinstance(got, PreparedCall), (entry.claude, got)
        assert isinstance(want, PreparedCall)
        assert got.input == want.input
        checked += 1
    assert checked == 3


def test_the_schema_the_model_sees_is_unchanged() -> None:
    registry = default_registry()
    for name in ("read_file", "write_file", "edit_file", "update_plan"):
        tool = registry.get(name)
        assert tool is not None
        text = json.dumps(tool_schema(tool))
        for claude_only in ("file_path", "todos", "activeForm"):
            assert claude_only not in text


def test_path_given_both_ways_alike_is_one_path() -> None:
    dumped = _prepare("read_file", {"path": "a.txt", "file_path": "a.txt"}).input.model_dump()
    assert dumped["path"] == "a.txt"


def test_path_given_both_ways_differently_is_refused_naming_the_field() -> None:
    """Never a guess between two paths: the call is refused and says which field."""
    error = default_registry().prepare(
        "write_file", json.dumps({"path": "a.txt", "file_path": "b.txt", "content": ""})
    )
    assert isinstance(error, ToolErrorInfo)
    assert any("file_path" in detail for detail in error.details), error


TODOS = {
    "todos": [
        {"content": "Read the code", "status": "completed", "activeForm": "Reading the code"},
        {"content": "Fix the bug", "status": "in_progress", "activeForm": "Fixing the bug"},
        {"content": "Run the tests", "status": "pending", "activeForm": "Running the tests"},
    ]
}


@pytest.mark.parametrize("name", ["update_plan", "todo_write"])
async def test_todo_write_shape_is_a_plan(name: str, tmp_path: Path) -> None:
    registry = default_registry()
    outcome = await registry.dispatch(name, json.dumps(TODOS), ToolContext(cwd=tmp_path))
    assert outcome.ok, outcome.error
    assert outcome.output is not None
    steps = outcome.output.data["plan"]["steps"]
    assert [(s["content"], s["status"]) for s in steps] == [
        ("Read the code", "completed"),
        ("Fix the bug", "in_progress"),
        ("Run the tests", "pending"),
    ]
    assert "[>] Fix the bug" in outcome.output.content


def test_old_todo_write_items_with_id_and_priority_are_accepted() -> None:
    prepared = _prepare(
        "update_plan",
        {"todos": [{"id": "1", "content": "Do it", "status": "pending", "priority": "high"}]},
    )
    assert prepared.input.model_dump()["plan"] == [{"content": "Do it", "status": "pending"}]


def test_todos_keep_the_plan_rules() -> None:
    """Two steps in progress are refused in the todos shape as in ours."""
    error = default_registry().prepare(
        "update_plan",
        json.dumps(
            {
                "todos": [
                    {"content": "a", "status": "in_progress"},
                    {"content": "b", "status": "in_progress"},
                ]
            }
        ),
    )
    assert isinstance(error, ToolErrorInfo)
    assert "in_progress" in " ".join(error.details)


def test_plan_and_todos_together_are_refused() -> None:
    error = default_registry().prepare(
        "update_plan",
        json.dumps({"plan": [{"content": "a"}], "todos": [{"content": "b"}]}),
    )
    assert isinstance(error, ToolErrorInfo)
    assert any("todos" in detail for detail in error.details), error


def test_a_call_in_claude_codes_shapes_is_summarized_as_ours() -> None:
    """The lane's one-line summary of the call as the model sent it."""
    assert summarize_input(TODOS) == "3 steps"
    assert summarize_input({"file_path": "src/app.py"}) == "src/app.py"
