"""A model that calls Claude Code's tools by name, through the real agent loop (the script
provider, the built-in tools, a saved session): each call runs as our tool; the card, the
result and the record show our name and fields; the conversation keeps the model's own call,
and a resumed session shows and continues it the same way."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.agent.agent import Agent
from agent_tui.core.conversation.replay import transcript_events
from agent_tui.core.conversation.session_store import SessionStore
from agent_tui.core.events import Event, ToolResult, ToolUse
from agent_tui.core.permissions import SimplePolicy
from agent_tui.core.providers.anthropic import to_anthropic_messages
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.tools.builtin import default_registry
from tests.core.helpers import collect, write_script

NOTES = "alpha\nbeta\ngamma\n"
TODOS = [
    {"content": "Look", "status": "completed", "activeForm": "Looking"},
    {"content": "Fix", "status": "in_progress", "activeForm": "Fixing"},
]


def _read(ws: Path, name: str) -> str:
    return (ws / name).read_text()


Check = Callable[[Path, ToolResult], None]


def _wrote(name: str, text: str) -> Check:
    def check(ws: Path, result: ToolResult) -> None:
        assert _read(ws, name) == text

    return check


def _says(*wanted: str, never: str = "\0") -> Check:
    def check(ws: Path, result: ToolResult) -> None:
        for text in wanted:
            assert text in result.content, result.content
        assert never not in result.content

    return check


CASES: list[tuple[str, dict[str, Any], str, dict[str, Any], Check]] = [
    (
        "Bash",
        {"command": "printf made > out.txt", "timeout": 20000, "description": "Make a file"},
        "run_shell",
        {"command": "printf made > out.txt", "timeout": 20.0},
        _wrote("out.txt", "made"),
    ),
    (
        "Read",
        {"file_path": "notes.txt", "offset": 2, "limit": 1},
        "read_file",
        {"path": "notes.txt", "offset": 2, "limit": 1},
        _says("beta", never="alpha"),
    ),
    (
        "Write",
        {"file_path": "new.txt", "content": "fresh\n"},
        "write_file",
        {"path": "new.txt", "content": "fresh\n"},
        _wrote("new.txt", "fresh\n"),
    ),
    (
        "Edit",
        {"file_path": "notes.txt", "old_string": "beta", "new_string": "BETA"},
        "edit_file",
        {"path": "notes.txt", "old_string": "beta", "new_string": "BETA"},
        _wrote("notes.txt", "alpha\nBETA\ngamma\n"),
    ),
    (
        "MultiEdit",
        {
            "file_path": "notes.txt",
            "edits": [
                {"old_string": "alpha", "new_string": "ALPHA"},
                {"old_string": "ALPHA\nbeta", "new_string": "ALPHA\nBETA"},
            ],
        },
        "edit_file",
        {
            "path": "notes.txt",
            "old_string": "alpha",
            "new_string": "ALPHA",
            "more_edits": [{"old_string": "ALPHA\nbeta", "new_string": "ALPHA\nBETA"}],
        },
        _wrote("notes.txt", "ALPHA\nBETA\ngamma\n"),
    ),
    ("Glob", {"pattern": "*.txt"}, "glob", {"pattern": "*.txt"}, _says("notes.txt")),
    (
        "Grep",
        {"pattern": "BETA", "-i": True, "glob": "*.txt", "output_mode": "content", "-n": True},
        "grep",
        {"pattern": "BETA", "ignore_case": True, "glob": "*.txt"},
        _says("notes.txt:2:beta"),
    ),
    ("LS", {"path": ".", "ignore": ["*.log"]}, "list_dir", {"path": "."}, _says("notes.txt")),
    (
        "TodoWrite",
        {"todos": TODOS},
        "update_plan",
        {
            "plan": [
                {"content": "Look", "status": "completed"},
                {"content": "Fix", "status": "in_progress"},
            ]
        },
        _says("Plan updated"),
    ),
]


def _workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "notes.txt").write_text(NOTES)
    return ws


def _agent(tmp_path: Path, ws: Path, turns: list[dict[str, Any]], store: SessionStore) -> Agent:
    script = write_script(tmp_path / "script.json", turns)
    return Agent(
        ScriptProvider(script),
        default_registry(),
        ws,
        policy=SimplePolicy({"*"}),
        session=store.new(ws, "script"),
        sessions=store,
        system="test",
    )


def _calls(claude: str, arguments: dict[str, Any]) -> list[dict[str, Any]]:
    """The calls of the model's message: an edit reads its file first (in the same message)."""
    calls = [{"id": "cc", "name": claude, "arguments": arguments}]
    if claude in ("Edit", "MultiEdit"):
        calls.insert(0, {"id": "rd", "name": "Read", "arguments": {"file_path": "notes.txt"}})
    return calls


def _uses(events: list[Event]) -> dict[str, ToolUse]:
    return {e.id: e for e in events if isinstance(e, ToolUse)}


def _ends(events: list[Event]) -> dict[str, Event]:
    return {e.id: e for e in events if e.type in ("tool_result", "tool_error", "tool_rejected")}  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("claude", "arguments", "ours", "shown", "check"), CASES, ids=[c[0] for c in CASES]
)
async def test_a_claude_code_call_runs_as_ours_and_resumes(
    tmp_path: Path,
    claude: str,
    arguments: dict[str, Any],
    ours: str,
    shown: dict[str, Any],
    check: Check,
) -> None:
    ws = _workspace(tmp_path)
    store = SessionStore(tmp_path / "sessions")
    turns = [{"tool_calls": _calls(claude, arguments)}, {"text": "done"}]
    agent = _agent(tmp_path, ws, turns, store)
    events = await collect(agent, "go")

    # the card and the result: our tool, our fields
    use = _uses(events)["cc"]
    assert (use.name, use.input) == (ours, shown)
    end = _ends(events)["cc"]
    assert isinstance(end, ToolResult), end
    assert end.name == ours
    assert not end.is_error, end.content
    check(ws, end)

    # the conversation keeps the model's own call, answered by its id
    assistant = next(m for m in agent.messages if m.role == "assistant" and m.tool_calls)
    sent = next(c for c in assistant.tool_calls if c.id == "cc")
    assert (sent.name, json.loads(sent.arguments)) == (claude, arguments)
    answer = next(m for m in agent.messages if m.tool_call_id == "cc")
    assert answer.record is not None
    assert answer.record.call is not None
    assert answer.record.call.name == ours

    # a resumed session shows the call as the live one did, and goes on from it
    assert agent.session is not None
    resumed = _agent(tmp_path, ws, [{"text": "again"}], store)
    await resumed.resume(agent.session.path)
    assert resumed.messages == agent.messages
    replayed = list(transcript_events(resumed.history()))
    again = _uses(replayed)["cc"]
    assert (again.name, again.input) == (ours, shown)
    assert _ends(replayed)["cc"] == end
    more = await collect(resumed, "more")
    assert more[-1].type == "turn_end"
    assert more[-1].text == "again"  # type: ignore[attr-defined]
    await agent.close()
    await resumed.close()


async def test_todo_write_sets_the_plan_a_resume_keeps(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    store = SessionStore(tmp_path / "sessions")
    turns = [{"tool_calls": [{"id": "t", "name": "TodoWrite", "arguments": {"todos": TODOS}}]}]
    agent = _agent(tmp_path, ws, [*turns, {"text": "ok"}], store)
    events = await collect(agent, "plan it")
    assert [e.type for e in events].count("plan") == 1
    assert agent.plan is not None
    assert [(s.content, s.status) for s in agent.plan.steps] == [
        ("Look", "completed"),
        ("Fix", "in_progress"),
    ]
    assert agent.session is not None
    resumed = _agent(tmp_path, ws, [], store)
    await resumed.resume(agent.session.path)
    assert resumed.plan == agent.plan
    await agent.close()
    await resumed.close()


async def test_a_refused_field_ends_the_call_with_its_name_and_nothing_runs(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    store = SessionStore(tmp_path / "sessions")
    arguments = {"command": "touch started", "dangerouslyDisableSandbox": True}
    turns = [{"tool_calls": [{"id": "bg", "name": "Bash", "arguments": arguments}]}, {"text": "k"}]
    agent = _agent(tmp_path, ws, turns, store)
    events = await collect(agent, "go")
    use = _uses(events)["bg"]
    assert use.name == "run_shell"  # the card names our tool, with the call as sent
    end = _ends(events)["bg"]
    assert end.type == "tool_error"
    assert "dangerouslyDisableSandbox" in end.message  # type: ignore[attr-defined]
    assert not (ws / "started").exists()
    await agent.close()


async def test_the_anthropic_wire_sends_the_call_as_it_ran(tmp_path: Path) -> None:
    """That API checks each ``tool_use`` name against the request's tools, which are ours: a
    Claude Code call is sent as the call it ran as (its record); other calls as they are."""
    ws = _workspace(tmp_path)
    store = SessionStore(tmp_path / "sessions")
    calls = [
        {"id": "b", "name": "Bash", "arguments": {"command": "true", "timeout": 5000}},
        {"id": "r", "name": "read_file", "arguments": {"path": "notes.txt"}},
        {"id": "x", "name": "NotebookEdit", "arguments": {}},
    ]
    agent = _agent(tmp_path, ws, [{"tool_calls": calls}, {"text": "k"}], store)
    await collect(agent, "go")
    wire = to_anthropic_messages(agent.messages)
    uses = [block for m in wire for block in m["content"] if block["type"] == "tool_use"]
    assert [(u["id"], u["name"], u["input"]) for u in uses] == [
        ("b", "run_shell", {"command": "true", "timeout": 5.0}),
        ("r", "read_file", {"path": "notes.txt"}),
        ("x", "NotebookEdit", {}),
    ]
    await agent.close()
