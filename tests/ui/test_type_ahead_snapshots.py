"""Snapshot: two messages queued under the prompt while a turn runs (``QueuedMessages``).

Events are fed straight to the app's router (no model, a frozen clock) and the queue is
filled as Enter during the turn fills it, so the picture is deterministic."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from agent_tui.core.events import AssistantDelta, AssistantMessage, ToolResult, ToolUse, UserMessage
from agent_tui.ui.shell.activity import Activity

from .helpers import QuietApp, feed, make_agent, wait_for

SnapCompare = Callable[..., bool]


def frozen() -> float:
    return 1000.0


async def two_queued(pilot: Pilot[Any]) -> None:
    app = pilot.app
    assert isinstance(app, QuietApp)
    await pilot.pause()
    app.busy = True  # the turn below is running
    await feed(
        app,
        [
            UserMessage(text="Find where the settings are loaded."),
            AssistantMessage(text="Let me search.", tool_calls=[]),
            ToolUse(id="g", name="grep", input={"pattern": "load_settings"}, raw_arguments=""),
            ToolResult(id="g", name="grep", content="src/settings.py:12", summary="1 match"),
            AssistantDelta(text="The settings are loaded in"),
        ],
    )
    app.activity = Activity.WRITING
    assert app.send("Then add a test for a broken settings file.")
    assert app.send("And mention it in the README, in the Settings section.")
    await wait_for(pilot, lambda: app.main.query_one("#queued").region.height > 0, "the queue")
    await pilot.pause()


def test_two_queued_messages_under_the_prompt(snap_compare: SnapCompare, tmp_path: Path) -> None:
    app = QuietApp(agent=make_agent(tmp_path, []), cwd_label="~/project", clock=frozen)
    assert snap_compare(app, terminal_size=(120, 36), run_before=two_queued)
