"""What the MCP panel and the permission prompt leave out of their first frame (issue 45,
``benchmarks/bench_screens.py``), and that it is there when needed: the panel's hidden sections
(Resources, Prompts, Server log) are built when first shown (a key, a click on the tab) and show
the selected server at once; the prompt's feedback field (hidden until f) mounts after the
prompt's first paint, and the prompt takes no answer before it is there.

"First paint" is observed as the first ``render_lines`` of a widget that is in that frame (the
server list, the prompt's choices): the compositor calls it to draw the frame."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from textual.widget import Widget
from textual.widgets import Input, TabbedContent

from agent_tui.ui.approval.choices import ApprovalChoices
from agent_tui.ui.approval.screen import ApprovalScreen
from agent_tui.ui.mcp.prompt_list import PromptList
from agent_tui.ui.mcp.resource_list import ResourceList
from agent_tui.ui.mcp.section_list import SectionList
from agent_tui.ui.mcp.server_list import ServerList
from agent_tui.ui.mcp.server_log_view import ServerLogView
from tests.core.mcp.conftest import fixture_entry, write_config

from .helpers import make_agent, make_app, submit, wait_approval
from .test_mcp_panel import CONNECT, open_panel, panel_app, running
from .test_mcp_panel_sections import lines, wait_for


@contextmanager
def first_paint(
    monkeypatch: pytest.MonkeyPatch, kind: type[Widget], seen: list[Any], look: Any
) -> Iterator[None]:
    """Record ``look(widget)`` when a ``kind`` widget is first drawn into a frame."""
    render_lines = kind.render_lines

    def spy(self: Widget, crop: Any) -> Any:
        if not seen:
            seen.append(look(self))
        return render_lines(self, crop)

    monkeypatch.setattr(kind, "render_lines", spy)
    yield


async def test_the_panels_hidden_sections_are_built_on_their_first_show(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_config(tmp_path / ".mcp.json", {"fix": fixture_entry("logs", name="fix-logs")})
    app, manager = panel_app(tmp_path)
    seen: list[int] = []
    async with running(app, manager) as pilot:
        await wait_for(
            pilot, lambda: manager.state("fix").status == "connected", "the fixture", CONNECT
        )
        with first_paint(monkeypatch, ServerList, seen, lambda w: len(w.screen.query(SectionList))):
            panel = await open_panel(pilot)
            await wait_for(pilot, lambda: seen != [], "the first frame")
        assert seen == [0]  # the first frame had none of them
        await pilot.pause()
        assert not panel.query(SectionList)  # nor after: not shown yet
        state = manager.state("fix")
        tabs = panel.query_one(TabbedContent)  # the counts, from the server's data
        assert str(tabs.get_tab("tab-resources").label) == f"Resources {len(state.resources)}"
        assert str(tabs.get_tab("tab-log").label) == "Server log"
        # 2 builds the resources, showing the selected server's at once; tab goes into them
        await pilot.press("2")
        resources = panel.query_one(ResourceList)
        assert panel.section == "resources"
        assert [item.uri for item in resources.items] == [r.uri for r in state.resources]
        assert len(lines(resources)) == len(state.resources) == 2
        await pilot.press("tab")
        assert resources.options.has_focus
        # ] from the resources' rows: the prompts, built, the focus on their rows
        await pilot.press("right_square_bracket")
        assert panel.section == "prompts"
        prompts = panel.query_one(PromptList)
        assert len(lines(prompts)) == len(prompts.items) == 2  # the fixture's two
        assert prompts.options.has_focus
        # a tab shown otherwise (a click on it) is built too
        tabs.active = "tab-log"
        await wait_for(pilot, lambda: bool(panel.query(ServerLogView)), "the log built")
        log_view = panel.query_one(ServerLogView)
        assert log_view.server is not None
        assert log_view.server.name == "fix"
        await pilot.press("1")
        assert panel.section == "tools"
        await pilot.press("2")  # built once
        assert panel.query_one(ResourceList) is resources
        assert len(panel.query(SectionList)) == 3


async def test_the_prompts_feedback_field_mounts_after_its_first_frame(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    turns: list[dict[str, Any]] = [
        {"tool_calls": [{"id": "c", "name": "run_shell", "arguments": {"command": "echo 1"}}]},
        {"text": "done"},
    ]
    app = make_app(make_agent(tmp_path, turns))
    seen: list[bool] = []
    async with app.run_test(size=(120, 40)) as pilot:
        with first_paint(monkeypatch, ApprovalChoices, seen, lambda w: bool(w.screen.query(Input))):
            await submit(pilot, "go")
            screen = await wait_approval(pilot)  # armed: the field is there
        assert isinstance(screen, ApprovalScreen)
        assert seen == [False]
        field = screen.query_one("#feedback", Input)
        assert field.cursor_blink is False  # the app's setting (QuietApp), as before
        assert field.parent is screen.query_one("#bottom")
        order = [child.id for child in screen.query_one("#bottom").children]
        assert order == ["choices", "feedback", "hint"]
        await pilot.press("f")
        assert field.has_focus
        await pilot.press(*"no", "enter")
        await wait_for(pilot, lambda: app.screen is not screen, "the prompt to close")
