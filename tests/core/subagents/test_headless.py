"""``agent-tui -p --output-format stream-json`` with a subagent: its events are in the stream,
typed with the parent call's id; a broken agent file is a start warning, the run goes on."""

from __future__ import annotations

from pathlib import Path

from agent_tui.core.events import SessionStart, ToolResult, ToolUse, parse_event
from tests.test_cli_headless import run_cli, write_script


def test_stream_json_carries_the_child_events(workspace: Path) -> None:
    (workspace / "notes.txt").write_text("the answer is 42\n")
    agents = workspace / ".agent-tui" / "agents"
    agents.mkdir(parents=True)
    (agents / "broken.md").write_text("no front matter here\n")
    script = write_script(
        workspace / "script.json",
        [
            {
                "tool_calls": [
                    {
                        "id": "t1",
                        "name": "task",
                        "arguments": {"description": "find it", "prompt": "Find the answer"},
                    }
                ]
            },
            {"tool_calls": [{"id": "c1", "name": "read_file", "arguments": {"path": "notes.txt"}}]},
            {"text": "REPORT: 42"},
            {"text": "The answer is 42."},
        ],
    )
    done = run_cli(
        "-p", "go", "--output-format", "stream-json", "--model", f"script:{script}", cwd=workspace
    )
    assert done.returncode == 0, done.stderr
    events = [parse_event(line) for line in done.stdout.splitlines() if line.strip()]
    start = events[0]
    assert isinstance(start, SessionStart)
    assert any("broken.md" in w and "no front matter" in w for w in start.warnings)
    child = [e for e in events if getattr(e, "parent_call_id", None) == "t1"]
    assert any(isinstance(e, ToolUse) and e.id == "c1" and e.agent == "general" for e in child)
    assert any(isinstance(e, ToolResult) and e.id == "c1" for e in child)
    result = next(e for e in events if isinstance(e, ToolResult) and e.id == "t1")
    assert result.content == "REPORT: 42"
    assert result.subagent is not None
    assert [c.id for c in result.subagent.calls] == ["c1"]
