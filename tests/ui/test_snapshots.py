"""Snapshots: one per screen and render state. Events are fed straight to the app's router
(no model, no tools, a frozen clock), so every picture is deterministic."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from agent_tui.core.agent.agent import Agent
from agent_tui.core.calls import ResultFacts
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
from agent_tui.core.sandbox import Shelter
from agent_tui.core.tools.builtin import default_registry
from agent_tui.core.transcript import Usage
from agent_tui.ui.approval.screen import ApprovalScreen, Ask
from agent_tui.ui.shell.events_bridge import AgentEvent

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
        await app.main.lane.settle()
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
        summary="lines 1–40 of 40",
        facts=ResultFacts(first=1, last=40, total_lines=40),
    ),
    use("f", "run_shell", command="make lint"),
    ToolResult(
        id="f",
        name="run_shell",
        content="ruff: 3 errors\n",
        is_error=True,
        elapsed=1.25,
        summary="exit 2 · ruff: 3 errors",
        facts=ResultFacts(exit_code=2),
        spill=SpillPointer(path=".agent-spill/run_shell-f.log", chars=180_000, lines=4_000),
    ),
    use("x", "write_file", path="config.toml", content="x = 1\n"),
    ToolRejected(
        id="x",
        name="write_file",
        reason="The user denied this call.",
        feedback="write to notes.md instead",
        by="user",
    ),
    ToolUse(id="e", name="fetch_url", input=None, raw_arguments='{"url": oops'),
    ToolErrorEvent(
        id="e", name="fetch_url", code="unknown_tool", message="There is no tool named 'fetch_url'."
    ),
    use("g1", "glob", pattern="**/*.py"),
    use("g2", "grep", pattern="TODO", path="src"),
    ToolGroup(ids=["g1", "g2"]),
    ToolResult(
        id="g1",
        name="glob",
        content="src/a.py\nsrc/b.py",
        elapsed=0.012,
        summary="2 files",
        facts=ResultFacts(files=2),
    ),
    ToolProgress(id="g2", name="grep", elapsed=0.8, message="scanning 120 files"),
]


THEME_EVENTS: list[Event] = [
    UserMessage(text="Fix the failing test, please."),
    AssistantMessage(text="I'll run the tests first.", tool_calls=[]),
    use("t", "run_shell", command="pytest -q"),
    ToolResult(
        id="t",
        name="run_shell",
        content="F.\n1 failed",
        is_error=True,
        elapsed=2.4,
        summary="exit 1 · 1 failed",
        facts=ResultFacts(exit_code=1),
    ),
    use("e", "edit_file", path="src/app.py", old_string="a", new_string="b"),
    ToolResult(
        id="e",
        name="edit_file",
        content="Edited src/app.py: 1 replacement.\n--- a/src/app.py\n+++ b/src/app.py\n"
        "@@ -1 +1 @@\n-a\n+b",
        elapsed=0.01,
        summary="+1 −1",
        facts=ResultFacts(added=1, removed=1),
        data={"diff": "--- a/src/app.py\n+++ b/src/app.py\n@@ -1 +1 @@\n-a\n+b"},
    ),
    use("x", "write_file", path="config.toml", content="x = 1\n"),
    ToolRejected(
        id="x", name="write_file", reason="The user denied this call.", feedback="no", by="user"
    ),
    use("s", "run_shell", command="sleep 60"),
    ToolErrorEvent(id="s", name="run_shell", code="interrupted", message="stopped", elapsed=3.0),
    AssistantDelta(text="Fixed: the test expected **Hello**, got `hi`."),
    UsageEvent(
        turn=Usage(input_tokens=4321, output_tokens=210),
        session=Usage(input_tokens=4321, output_tokens=210),
    ),
]


@pytest.mark.parametrize("theme", ["agent-dark", "agent-light", "agent-contrast"])
def test_main_screen_in_each_theme(snap_compare: SnapCompare, tmp_path: Path, theme: str) -> None:
    async def choose(pilot: Pilot[Any]) -> None:
        pilot.app.theme = theme
        await pilot.pause()

    app = demo_app(tmp_path)
    assert snap_compare(app, terminal_size=WIDE, run_before=feeding(THEME_EVENTS, choose))


def test_narrow_terminal_puts_the_lane_below(snap_compare: SnapCompare, tmp_path: Path) -> None:
    assert snap_compare(
        demo_app(tmp_path), terminal_size=(84, 40), run_before=feeding(THEME_EVENTS)
    )


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
            summary="lines 1–5 of 5",
            facts=ResultFacts(first=1, last=5, total_lines=5),
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
            summary="lines 1–12 of 12",
            facts=ResultFacts(first=1, last=12, total_lines=12),
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


def _prompt_snapshot(
    snap_compare: SnapCompare,
    tmp_path: Path,
    ask: Ask,
    waiting: int = 0,
    size: tuple[int, int] = WIDE,
) -> bool:
    async def open_prompt(pilot: Pilot[Any]) -> None:
        app = pilot.app
        screen = ApprovalScreen(ask, waiting=waiting, cursor_blink=False)
        await app.push_screen(screen)
        await wait_for(pilot, lambda: app.screen is screen, "the prompt")
        hint = screen.query_one("#hint")
        await wait_for(  # fitted to the terminal: the hint's last row is on screen
            pilot, lambda: 0 < hint.region.bottom <= size[1], "the prompt to fit the screen"
        )

    events: list[Event] = [
        UserMessage(text="Go ahead."),
        use("c", ask.tool, **ask.input),
        PermissionRequest(id="c", name=ask.tool, input=ask.input, reason=ask.reason),
    ]
    return snap_compare(
        demo_app(tmp_path), terminal_size=size, run_before=feeding(events, open_prompt)
    )


def test_permission_prompt_for_a_shell_command(snap_compare: SnapCompare, tmp_path: Path) -> None:
    ask = Ask(
        tool="run_shell",
        input={"command": "git commit -am 'Fix the greeting'\ngit push origin main"},
        reason="run_shell runs commands on your machine",
        always="run_shell(git commit:*), run_shell(git push:*)",
        saves_to=".agent-tui/settings.local.json",
        cwd=tmp_path,
    )
    assert _prompt_snapshot(snap_compare, tmp_path, ask, waiting=1)


def test_permission_prompt_for_an_edit_shows_the_diff(
    snap_compare: SnapCompare, tmp_path: Path
) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text(
        "import sys\n\n\ndef greet(name):\n    return 'hi ' + name\n\n\n"
        "print(greet(sys.argv[1]))\n",
        encoding="utf-8",
    )
    ask = Ask(
        tool="edit_file",
        input={
            "path": "src/app.py",
            "old_string": "def greet(name):\n    return 'hi ' + name",
            "new_string": "def greet(name: str) -> str:\n    return f'Hello, {name}!'",
            "replace_all": False,
        },
        reason="edit_file changes files",
        always="edit_file(src/app.py)",
        saves_to=".agent-tui/settings.local.json",
        cwd=tmp_path,
    )
    assert _prompt_snapshot(snap_compare, tmp_path, ask)


def test_permission_prompt_for_a_write_that_cannot_be_rewound(
    snap_compare: SnapCompare, tmp_path: Path
) -> None:
    """The caveat (issue 38, item 8) stands under the reason, in the warning colour."""
    with (tmp_path / "huge.log").open("wb") as fh:
        fh.truncate(100 << 20)
    ask = Ask(
        tool="write_file",
        input={"path": "huge.log", "content": "rotated\n"},
        reason="write_file changes files",
        always="write_file(huge.log)",
        saves_to=".agent-tui/settings.local.json",
        cwd=tmp_path,
        caveats=(
            "this change cannot be rewound: the file held 100 MB, more than the 64 MB a "
            "checkpoint keeps of a file, so its old content was not kept",
        ),
    )
    assert _prompt_snapshot(snap_compare, tmp_path, ask)


def test_permission_prompt_for_an_mcp_tool(snap_compare: SnapCompare, tmp_path: Path) -> None:
    ask = Ask(
        tool="mcp__github__create_issue",
        input={"repo": "acme/agent-tui", "title": "Lane flickers", "labels": ["bug", "ui"]},
        reason="the rule mcp__github__create_issue (from .agent-tui/settings.json) asks for this "
        "call",
        always="mcp__github__create_issue",
        cwd=tmp_path,
    )
    assert _prompt_snapshot(snap_compare, tmp_path, ask)


def test_permission_prompt_without_always_allow(snap_compare: SnapCompare, tmp_path: Path) -> None:
    """An opaque command that could run a denied program: it asks in every mode, and the prompt
    says why "always allow" is not offered."""
    ask = Ask(
        tool="run_shell",
        input={"command": "x=$(printf rm); $x -rf build"},
        reason="$x -rf build could run what the rule run_shell(rm:*) denies; with that deny rule "
        "in force it asks in every mode",
        no_always="the command is not fully understood, so no rule can allow it",
        every_mode=True,
        saves_to=".agent-tui/settings.local.json",
        cwd=tmp_path,
    )
    assert _prompt_snapshot(snap_compare, tmp_path, ask)


def test_permission_prompt_with_a_long_diff_on_a_small_terminal(
    snap_compare: SnapCompare, tmp_path: Path
) -> None:
    """80×24 and a 200-line diff: the diff scrolls in its region, the choices and the hint
    stay on screen, and the frame says which keys scroll."""
    (tmp_path / "big.txt").write_text("".join(f"old line {n}\n" for n in range(100)))
    ask = Ask(
        tool="write_file",
        input={"path": "big.txt", "content": "".join(f"new line {n}\n" for n in range(100))},
        reason="write_file changes files",
        always="write_file(big.txt)",
        saves_to=".agent-tui/settings.local.json",
        cwd=tmp_path,
    )
    assert _prompt_snapshot(snap_compare, tmp_path, ask, size=(80, 24))


def test_permission_prompt_says_the_command_runs_sandboxed(
    snap_compare: SnapCompare, tmp_path: Path
) -> None:
    """80×24: a command that needs the network asks although the sandbox would confine it, and
    the prompt says how it will run."""
    ask = Ask(
        tool="run_shell",
        input={"command": "pip install -r requirements.txt"},
        reason="no rule allows pip install -r requirements.txt; it uses the network (pip "
        "install), which the sandbox turns off, so it would fail there (allow it with "
        '"sandbox": {"network": "on"})',
        always="run_shell(pip install:*)",
        saves_to=".agent-tui/settings.local.json",
        cwd=tmp_path,
        shelter=Shelter(True, False, "bubblewrap"),
    )
    assert _prompt_snapshot(snap_compare, tmp_path, ask, size=(80, 24))


def test_status_bar_with_a_filling_context_meter(snap_compare: SnapCompare, tmp_path: Path) -> None:
    """The meter in the error colour (above 80%), estimated between responses."""
    events: list[Event] = [
        UserMessage(text="Summarise the logs."),
        AssistantMessage(text="Done.", tool_calls=[]),
        UsageEvent(
            turn=Usage(input_tokens=170_000, output_tokens=900),
            session=Usage(input_tokens=170_000, output_tokens=900),
            context_tokens=171_000,
            context_window=200_000,
            percent=86,
            estimated=True,
        ),
        TurnEnd(reason="completed", turns=1),
    ]
    assert snap_compare(demo_app(tmp_path), terminal_size=WIDE, run_before=feeding(events))
