"""Claude Code's tool names and fields map onto ours, both ways, and every mapped name is a
real tool here (a renamed tool fails this test, not a user's hook)."""

from __future__ import annotations

from agent_tui.core.claude import names
from agent_tui.core.skills import NAME as SKILL
from agent_tui.core.subagents.tool import NAME as TASK
from agent_tui.core.tools.builtin import default_registry


def test_every_mapped_tool_exists_here() -> None:
    registered = {tool.name for tool in default_registry().tools()} | {TASK, SKILL}
    assert {entry.ours for entry in names.TOOLS} <= registered


def test_names_both_ways() -> None:
    assert names.ours("Bash") == "run_shell"
    assert names.ours("MultiEdit") == "edit_file"
    assert names.ours("read_file") == "read_file"
    assert names.ours("mcp__github__create_issue") == "mcp__github__create_issue"
    assert names.ours("NotebookEdit") is None
    assert "NotebookEdit" in names.UNMAPPED
    assert names.claude_name("edit_file") == "Edit"
    assert names.claude_name("task") == "Task"
    assert names.claude_name("mcp__s__t") == "mcp__s__t"


def test_fields_both_ways() -> None:
    ours = {"path": "a.py", "old_string": "x", "new_string": "y"}
    theirs = names.claude_input("edit_file", ours)
    assert theirs == {"file_path": "a.py", "old_string": "x", "new_string": "y"}
    assert names.our_input("edit_file", theirs) == ours
    assert names.our_input("read_file", {"file_path": "b", "path": "a"}) == {"path": "a"}
    assert names.claude_input("run_shell", {"command": "ls"}) == {"command": "ls"}


def test_claude_call_converts_our_calls_only() -> None:
    """Our ``run_shell`` timeout is seconds (shown as Claude Code's milliseconds); a call the
    model made as ``Bash`` is already in milliseconds and is kept as it is, as is a
    ``TodoWrite`` call's ``todos``."""
    from agent_tui.core.claude.names import claude_call

    assert claude_call("run_shell", {"command": "x", "timeout": 5}, "/w") == (
        "Bash",
        {"command": "x", "timeout": 5000},
    )
    assert claude_call("Bash", {"command": "x", "timeout": 5000}, "/w") == (
        "Bash",
        {"command": "x", "timeout": 5000},
    )
    todos = {"todos": [{"content": "a", "status": "pending", "activeForm": "a"}]}
    assert claude_call("TodoWrite", todos, "/w") == ("TodoWrite", todos)
    assert claude_call("update_plan", {"plan": [{"content": "a", "status": "pending"}]}, "/w") == (
        "TodoWrite",
        todos,
    )


def test_a_multi_edit_of_one_edit_is_still_a_multi_edit() -> None:
    from agent_tui.core.claude.names import claude_call
    from agent_tui.core.tools.claude_calls import from_multi_edit

    ours = from_multi_edit({"file_path": "a.py", "edits": [{"old_string": "a", "new_string": "b"}]})
    name, shown = claude_call("edit_file", ours, "/w")
    assert name == "MultiEdit"
    assert shown == {"file_path": "/w/a.py", "edits": [{"old_string": "a", "new_string": "b"}]}


def test_claude_codes_own_variables_are_its_not_a_projects() -> None:
    from agent_tui.core.claude.env import claude_own

    assert claude_own("CLAUDE_CODE_USE_BEDROCK")
    assert claude_own("CLAUDE_CONFIG_DIR")
    assert claude_own("ANTHROPIC_MODEL")
    assert not claude_own("CLAUDE_FLOW_MODE")  # claude-flow's: the project's own variable
