"""Snapshots: one per screen and render state. Events are fed straight to the app's router
(no model, no tools, a frozen clock), so every picture is deterministic."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from agent_tui.core.agent import Agent
from agent_tui.core.events import (
    AssistantDelta,
    AssistantMessage,
    ErrorEvent,
    Event,
    PermissionRequest,
    SpillPointer,
    ToolErrorEvent,
    ToolGroup,
    ToolProgress,
    ToolRejected,
    ToolResult,
    ToolUse,
    TurnEnd,
    UsageEvent,
    UserMessage,
)
from agent_tui.core.providers.demo import DemoProvider
from agent_tui.core.tools.builtin import default_registry
from agent_tui.core.transcript import ToolCall, Usage
from agent_tui.ui.events_bridge import AgentEvent
from agent_tui.ui.screens.approval import ApprovalScreen

from .helpers import QuietApp, wait_for

SnapCompare = Callable[..., bool]
WIDE = (120, 36)


def frozen() -> float:
    return 1000.0


def demo_app(cwd: Path) -> QuietApp:
    agent = Agent(DemoProvider(delay=0), default_registry(), cwd, system="test")
    return QuietApp(agent=agent, demo=True, cwd_label="~/project", clock=frozen)


def feeding(events: list[Event], then: Callable[[Pilot[Any]], Awaitable[None]] | None = None):
    """A ``run_before`` that routes ``events`` through the app, in order, awaiting each."""

    async def run_before(pilot: Pilot[Any]) -> None:
        app = pilot.app
        assert isinstance(app, QuietApp)
        await pilot.pause()
        for event in events:
            await app.on_agent_event(AgentEvent(event))
        await pilot.pause()
        if then is not None:
            await then(pilot)

    return run_before


def use(call_id: str, name: str, **input: Any) -> ToolUse:
    return ToolUse(id=call_id, name=name, input=input, raw_arguments="")


LANE_EVENTS: list[Event] = [
    UserMessage(text="Show me every state of a tool card."),
    AssistantMessage(text="", tool_calls=[]),
    use("q", "list_dir", path="src"),
    use("p", "run_shell", command="rm -rf build"),
    PermissionRequest(
        id="p",
        name="run_shell",
        input={"command": "rm -rf build"},
        reason="run_shell can change files or run commands",
    ),
    use("r", "run_shell", command="pytest -q"),
    ToolProgress(
        id="r",
        name="run_shell",
        elapsed=3.2,
        tail=["tests/test_a.py ....", "tests/test_b.py ..F", "tests/test_c.py ..."],
    ),
    use("ok", "read_file", path="README.md"),
    ToolResult(
        id="ok",
        name="read_file",
        content="     1\t# agent-tui\n[lines 1-40 of 40]",
        elapsed=0.004,
        data={"first": 1, "last": 40, "total_lines": 40},
    ),
    use("f", "run_shell", command="make lint"),
    ToolResult(
        id="f",
        name="run_shell",
        content="ruff: 3 errors\n",
        is_error=True,
        elapsed=1.25,
        data={"exit_code": 2},
        spill=SpillPointer(path=".agent-spill/run_shell-f.log", chars=180_000, lines=4_000),
    ),
    use("x", "write_file", path="config.toml", content="x = 1\n"),
    ToolRejected(
        id="x",
        name="write_file",
        reason="The user denied this call.",
        feedback="write to notes.md instead",
    ),
    ToolUse(id="e", name="fetch_url", input=None, raw_arguments='{"url": oops'),
    ToolErrorEvent(
        id="e", name="fetch_url", code="unknown_tool", message="There is no tool named 'fetch_url'."
    ),
    use("g1", "glob", pattern="**/*.py"),
    use("g2", "grep", pattern="TODO", path="src"),
    ToolGroup(ids=["g1", "g2"]),
    ToolResult(id="g1", name="glob", content="src/a.py\nsrc/b.py", elapsed=0.012),
    ToolProgress(id="g2", name="grep", elapsed=0.8, message="scanning 120 files"),
]


def test_idle_main_screen(snap_compare: SnapCompare, tmp_path: Path) -> None:
    assert snap_compare(demo_app(tmp_path), terminal_size=WIDE)


def test_idle_main_screen_narrow(snap_compare: SnapCompare, tmp_path: Path) -> None:
    assert snap_compare(demo_app(tmp_path), terminal_size=(84, 32))


def test_lane_with_every_state(snap_compare: SnapCompare, tmp_path: Path) -> None:
    assert snap_compare(
        demo_app(tmp_path), terminal_size=(130, 56), run_before=feeding(LANE_EVENTS)
    )


def test_expanded_card(snap_compare: SnapCompare, tmp_path: Path) -> None:
    events: list[Event] = [
        use("ok", "read_file", path="README.md"),
        ToolResult(
            id="ok",
            name="read_file",
            content="\n".join(f"{n:>6}\tline {n}" for n in range(1, 6))
            + "\n[lines 1-5 of 5 — end of file]",
            elapsed=0.004,
            data={"first": 1, "last": 5, "total_lines": 5},
        ),
    ]

    async def expand(pilot: Pilot[Any]) -> None:
        await pilot.press("tab", "tab", "enter")

    assert snap_compare(demo_app(tmp_path), terminal_size=WIDE, run_before=feeding(events, expand))


def test_conversation(snap_compare: SnapCompare, tmp_path: Path) -> None:
    reply = "I'll read the **README** first.\n\n- it is short\n- it has `code`\n"
    events: list[Event] = [
        UserMessage(text="What does this project do?"),
        *[AssistantDelta(text=piece) for piece in re.findall(r"\S+\s*|\s+", reply)],
        AssistantMessage(text=reply, tool_calls=[]),
        use("r", "read_file", path="README.md"),
        ToolResult(
            id="r",
            name="read_file",
            content="1\t# x",
            elapsed=0.01,
            data={"first": 1, "last": 12, "total_lines": 12},
        ),
        UsageEvent(
            turn=Usage(input_tokens=1234, output_tokens=56),
            session=Usage(input_tokens=1234, output_tokens=56),
        ),
        ErrorEvent(
            message="openai:gpt-4o: 429 Too Many Requests: rate limit reached", where="provider"
        ),
        TurnEnd(reason="interrupted", turns=1),
    ]
    assert snap_compare(demo_app(tmp_path), terminal_size=WIDE, run_before=feeding(events))


def test_approval_modal(snap_compare: SnapCompare, tmp_path: Path) -> None:
    edit = {
        "path": "src/app.py",
        "old_string": "def greet(name):\n    return 'hi ' + name",
        "new_string": "def greet(name: str) -> str:\n    return f'Hello, {name}!'",
        "replace_all": False,
    }
    call = ToolCall(id="e", name="edit_file", arguments="{}")

    async def open_prompt(pilot: Pilot[Any]) -> None:
        app = pilot.app
        await app.push_screen(
            ApprovalScreen(
                "edit_file", edit, "edit_file can change files or run commands", cursor_blink=False
            )
        )
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen), "the prompt")

    events: list[Event] = [
        UserMessage(text="Add type hints to greet."),
        AssistantMessage(text="Adding the hints.", tool_calls=[call]),
        use("e", "edit_file", path="src/app.py"),
        PermissionRequest(id="e", name="edit_file", input=edit, reason="asks"),
    ]
    assert snap_compare(
        demo_app(tmp_path), terminal_size=WIDE, run_before=feeding(events, open_prompt)
    )
