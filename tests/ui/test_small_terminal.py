"""At 80×24: an empty lane gives its rows to the chat (it comes back with the first call, as
tall as its cards up to 40% of the screen), and
the status bar keeps the MCP count and the cwd in view (it says less of the rest)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Static

from agent_tui.ui.app import AgentApp
from agent_tui.ui.shell.events_bridge import AgentEvent

from .helpers import make_agent, make_app, use, wait_for
from .test_snapshots import SnapCompare, demo_app

SMALL = (80, 24)


async def test_an_empty_lane_collapses_below_a_narrow_chat(tmp_path: Path) -> None:
    app = make_app(make_agent(tmp_path, []))
    async with app.run_test(size=SMALL) as pilot:
        main = app.main
        await wait_for(pilot, lambda: main.chat.region.height > 0, "the chat")
        side = main.query_one("#side")
        assert side.region.height == 0
        assert main.chat.region.height >= 14  # 9-10 rows when the empty lane took 8
        await app.on_agent_event(AgentEvent(use("r", "read_file", path="a.txt")))
        await main.lane.settle()
        await wait_for(pilot, lambda: side.region.height > 0, "the lane with its first call")
        lane = main.lane
        # as tall as its one card (and its border), not the 8 rows it took before
        await wait_for(pilot, lambda: 3 <= lane.region.height < 8, "the lane fitting its card")
        assert main.chat.region.height >= 10
        for n in range(12):
            await app.on_agent_event(AgentEvent(use(f"r{n}", "grep", pattern=f"p{n}")))
        await lane.settle()
        await wait_for(pilot, lambda: lane.max_scroll_y > 0, "a lane longer than it may grow")
        # at most 40% of the rows below the header; its bottom border stays in view
        assert lane.region.height <= 0.4 * app.size.height
        assert lane.region.bottom <= side.region.bottom
        assert main.chat.region.height >= 9
    await app.agent.close()


async def test_a_wide_screen_keeps_its_empty_lane(tmp_path: Path) -> None:
    app = make_app(make_agent(tmp_path, []))
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for(pilot, lambda: app.main.lane.region.width > 0, "the lane")
        assert app.main.lane.region.height > 30  # beside the chat, "No tool calls yet."
    await app.agent.close()


def _status(app: AgentApp, part: str) -> Static:
    return app.main.status.query_one(f"#{part}", Static)


async def test_the_status_bar_keeps_mcp_and_cwd_at_80_columns(tmp_path: Path) -> None:
    app = make_app(make_agent(tmp_path, []), cwd_label="~/src/project")
    async with app.run_test(size=SMALL) as pilot:
        app.model = "openai:gpt-4o-mini"
        app.mode = "accept-edits"
        app.sandbox = "⛉ sandbox · network"
        app.context_window, app.context_tokens = 128_000, 15_000
        app.mcp_connected, app.mcp_failed = 2, 1
        app.input_tokens, app.output_tokens = 12_345, 6_789
        mcp, cwd = _status(app, "mcp"), _status(app, "cwd")
        await wait_for(pilot, lambda: str(mcp.render()) == "MCP 2 · 1✗", "the short MCP count")
        await pilot.pause()
        assert str(cwd.render()).strip() == "~/src/project"
        assert cwd.region.width >= len("~/src/project")
        assert str(_status(app, "mode").render()) == "accept-edits"
        assert str(_status(app, "sandbox").render()) == "⛉"
        assert not _status(app, "tokens").display or _status(app, "tokens").region.width == 0
        await pilot.resize_terminal(140, 40)
        await wait_for(pilot, lambda: "connected" in str(mcp.render()), "the long MCP count")
        assert str(mcp.render()) == "MCP 2 connected · 1 failed"
        assert str(_status(app, "mode").render()) == "mode: accept-edits"
    await app.agent.close()


def test_snapshot_80x24_empty_lane_and_status(snap_compare: SnapCompare, tmp_path: Path) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        app = pilot.app
        assert isinstance(app, AgentApp)
        app.mcp_connected = 2
        app.context_window, app.context_tokens = 128_000, 3_100
        await pilot.pause()

    assert snap_compare(demo_app(tmp_path), terminal_size=SMALL, run_before=run_before)


async def test_the_first_frame_has_no_empty_lane_at_80_columns_either() -> None:
    from agent_tui.ui.shell.boot import Booted, BootFailed
    from agent_tui.ui.shell.shell_screen import ShellScreen

    from .helpers import QuietApp

    release = threading.Event()

    def boot() -> Booted:  # holds the shell up until the test has looked
        release.wait(60)
        raise BootFailed("done looking", 1)

    app = QuietApp(boot=boot)
    async with app.run_test(size=SMALL) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ShellScreen), "the shell")
        chat = app.screen.query_one("#chat")
        await wait_for(pilot, lambda: chat.region.height > 0, "the shell's chat")
        assert not app.screen.query_one("#side").display
        assert app.screen.has_class("-narrow")  # from the start: no restyle at the first resize
        assert not app.screen.has_class("-wide")
        assert chat.region.height >= 14  # as the main screen's, which replaces it
        release.set()
        await wait_for(pilot, lambda: app.boot_failure is not None, "the boot to end")
