"""What makes the spill browser, the MCP panel and the permission prompt open in a frame
(issue 19, ``benchmarks/bench_screens.py``) — and that they still show the right things:
a big spill's first window and its pages, all 100 tools of 5 real servers, the asked call.

The savings are checked as Textual work that no longer happens (restyles, CSS parses), not as
time: the footer's keys are not restyled as they mount, a pushed screen is not restyled
whole when it first shows, opening on a spill does not flash the "pick one" state, and the
background preload leaves the screens' CSS parsed under the keys Textual looks up."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from textual import events
from textual.app import App, ComposeResult
from textual.dom import DOMNode
from textual.widgets._footer import FooterKey

from agent_tui.core.budget.store import SpillStore
from agent_tui.core.disclosure import Disclosure
from agent_tui.core.mcp.client.manager import McpManager
from agent_tui.core.tools.registry import ToolRegistry
from agent_tui.ui.approval.screen import ApprovalScreen
from agent_tui.ui.common.steady_footer import SteadyFooter
from agent_tui.ui.mcp.panel import McpPanel
from agent_tui.ui.mcp.server_list import ServerList
from agent_tui.ui.mcp.tool_table import ToolTable
from agent_tui.ui.shell.preload import MODULES, preload, ready_schemas, ready_screens
from agent_tui.ui.spills.browser import SpillBrowser
from tests.core.mcp.conftest import FIXTURE

from .helpers import (
    QuietApp,
    make_agent,
    make_app,
    open_browser,
    open_mcp_panel,
    submit,
    wait_approval,
    wait_for,
)

SIZE = (120, 40)


@contextlib.contextmanager
def restyled(app: App[Any]) -> Iterator[list[DOMNode]]:
    """The nodes ``App.update_styles`` is asked to restyle (with their subtrees) meanwhile."""
    nodes: list[DOMNode] = []
    update = app.update_styles

    def spy(node: DOMNode, animate: bool = True) -> None:
        nodes.append(node)
        update(node, animate=animate)

    app.update_styles = spy  # type: ignore[method-assign]
    try:
        yield nodes
    finally:
        del app.update_styles


def big_spill(agent: Any, lines: int) -> str:
    store = SpillStore(agent.spills.root, agent.cwd, durable=False)
    with store.open_writer("run_shell", "big") as writer:
        step = 50_000
        for start in range(1, lines + 1, step):
            end = min(start + step, lines + 1)
            writer.write("".join(f"{n:8d} build step {n} ok\n" for n in range(start, end)))
        return writer.commit().shown


async def test_a_big_spill_opens_on_its_first_window_and_pages(tmp_path: Path) -> None:
    """1.5 M lines (~40 MB): the browser shows lines 1-2,000 at once, pages on, jumps to the
    end; it never showed the "pick a spill" state on the way, nor restyled itself whole when
    it first showed."""
    agent = make_agent(tmp_path, [])
    shown = big_spill(agent, 1_500_000)
    app = make_app(agent)
    seen: list[bool] = []
    show_nothing = SpillBrowser._show_nothing

    def spy(self: SpillBrowser) -> None:
        seen.append(True)
        show_nothing(self)

    SpillBrowser._show_nothing = spy  # type: ignore[method-assign]
    try:
        async with app.run_test(size=SIZE) as pilot:
            with restyled(app) as nodes:
                browser = await open_browser(pilot, shown)
                await wait_for(pilot, lambda: browser.viewer.rows, "the first window")
            assert browser not in nodes  # styled as it mounted, not once more as it showed
            assert seen == []
            assert not browser.has_class("-empty")
            assert browser.has_class("-wide")  # 120 columns: from the start
            window = browser.view.window
            assert window is not None
            assert (window.offset, window.last) == (1, 2000)
            assert browser.viewer.rows[0].text.split()[:2] == ["1", "build"]
            await pilot.press("pagedown")
            assert (browser.view.window.offset, browser.view.window.last) == (2001, 4000)
            assert browser.viewer.rows[0].text.split()[0] == "2001"
            await pilot.press("G")
            assert browser.view.window.last == 1_500_000
            assert browser.viewer.rows[-1].text.split()[0] == "1500000"
    finally:
        SpillBrowser._show_nothing = show_nothing  # type: ignore[method-assign]


async def test_only_the_first_show_skips_the_restyle(tmp_path: Path) -> None:
    """A later resume that asks for a restyle (Textual's default) gets it."""
    agent = make_agent(tmp_path, [])
    shown = big_spill(agent, 100)
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        browser = await open_browser(pilot, shown)
        with restyled(app) as nodes:
            browser.post_message(events.ScreenResume())
            await wait_for(pilot, lambda: browser in nodes, "the browser restyled")


async def test_the_footer_keys_are_not_restyled_as_they_mount(tmp_path: Path) -> None:
    """Each key starts in the footer's compact state (Textual's start compact, then are
    bound to the footer's: two restyles per key per rebuild); the palette key stays compact."""
    agent = make_agent(tmp_path, [])
    shown = big_spill(agent, 100)
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        with restyled(app) as nodes:
            browser = await open_browser(pilot, shown)
            await wait_for(pilot, lambda: browser.query(FooterKey), "the footer's keys")
            await pilot.pause()
        keys = list(browser.query(FooterKey))
        assert not [n for n in nodes if isinstance(n, FooterKey)]
        palette = [k for k in keys if k.has_class("-command-palette")]
        assert all(k.has_class("-compact") and k.compact for k in palette)
        others = [k for k in keys if k not in palette]
        assert others
        assert not any(k.has_class("-compact") or k.compact for k in others)
        assert {"Close", "End", "Search", "Copy"} <= {k.description for k in others}


async def test_the_preload_parses_the_screens_css_under_textuals_keys(tmp_path: Path) -> None:
    """``preload`` leaves each screen's default CSS in the parse cache, under the very key
    Textual computes when the screen mounts (so the mount parses nothing), and calls its
    ``then`` on the event loop once the rules are in."""
    app = make_app(make_agent(tmp_path, []))
    async with app.run_test(size=SIZE) as pilot:
        cache = app.stylesheet._parse_cache
        store = SpillStore(tmp_path / "spills", tmp_path)
        keys = [
            (css, where, True, tie_breaker, scope)
            for node in (
                SpillBrowser(store, list),
                McpPanel.__new__(McpPanel),
                ApprovalScreen.__new__(ApprovalScreen),
                FooterKey("q", "q", "Quit", "quit"),
            )
            for where, css, tie_breaker, scope in DOMNode._get_default_css(node)
        ]
        assert len(keys) > 4
        assert not all(key in cache for key in keys)
        done: list[bool] = []
        then = lambda: done.append(all(key in cache for key in keys))  # noqa: E731
        preload(app, None, then)
        await wait_for(pilot, lambda: done != [], "then called")
        assert done == [True]  # after the rules went in
        assert len(cache) > 64  # past Textual's own cache size
    assert "agent_tui.ui.spills.browser" in MODULES


async def test_the_preload_parses_the_parts_and_cards_they_mount(tmp_path: Path) -> None:
    """Beyond the screens' own classes: the parts their widgets compose from other modules
    (the server detail's rows and stderr tail, the tabs' underline) and the lane's cards
    (mounted with the first call, their modules imported at start-up)."""
    from textual.widgets._tabs import Underline

    from agent_tui.ui.lane.card_head import CardHead
    from agent_tui.ui.lane.tool_card import ToolCard
    from agent_tui.ui.mcp.fact_row import FactRow
    from agent_tui.ui.mcp.stderr_tail import StderrTail

    app = make_app(make_agent(tmp_path, []))
    async with app.run_test(size=SIZE) as pilot:
        cache = app.stylesheet._parse_cache
        keys = [
            (css, where, True, tie_breaker, scope)
            for kind in (FactRow, StderrTail, Underline, CardHead, ToolCard)
            for where, css, tie_breaker, scope in DOMNode._get_default_css(kind.__new__(kind))
        ]
        await asyncio.to_thread(ready_screens, app)
        await wait_for(pilot, lambda: all(key in cache for key in keys), "the rules cached")


def test_the_preload_makes_the_tools_schemas(tmp_path: Path) -> None:
    """Each built-in tool's input schema is made once, ahead of the panel's cost line: the
    tools array then makes none (the same text as made on demand)."""
    from agent_tui.core.tools.schema import schema_text

    registry = make_agent(tmp_path, []).registry
    schema_text.cache_clear()
    made = ready_schemas(registry)
    assert made >= 10
    assert schema_text.cache_info().currsize == made
    before = schema_text.cache_info().misses
    text = registry.openai_tools_json()
    assert schema_text.cache_info().misses == before
    schema_text.cache_clear()
    assert ToolRegistry(registry.tools()).openai_tools_json() == text


def shows(table: ToolTable, server: str) -> bool:
    return table.server is not None and table.server.name == server


async def test_the_panel_lists_all_100_tools_of_5_servers(tmp_path: Path) -> None:
    """Five real fixture servers with 20 tools each: every server listed, each one's 20 tools
    in its table, reached by scrolling it to the end."""
    servers = {
        f"srv{i}": {
            "command": sys.executable,
            "args": [str(FIXTURE), "--name", f"srv{i}", "--extra-tools", "4"],
        }
        for i in range(5)
    }
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    agent = make_agent(tmp_path, [{"text": "unused"}])
    agent.disclosure = Disclosure(agent.registry)
    manager = McpManager(tmp_path, agent.registry, watch=False)
    agent.tool_sources.append(manager)
    app: QuietApp = make_app(agent)
    try:
        async with app.run_test(size=(140, 44)) as pilot:
            panel = await open_mcp_panel(pilot, manager, 5)
            assert isinstance(panel, McpPanel)
            listing = panel.query_one(ServerList)
            table = panel.query_one(ToolTable)
            await wait_for(pilot, lambda: listing.option_count == 5, "5 servers listed")
            names: set[str] = set()
            for index in range(5):
                listing.focus()
                listing.highlighted = index
                server = f"srv{index}"
                await wait_for(pilot, lambda s=server: shows(table, s), server)
                assert table.focus_rows()
                await pilot.press("end")
                await pilot.pause()
                rows = table.options
                assert rows.option_count == 20
                assert rows.highlighted == 19
                assert rows.scroll_y == rows.max_scroll_y > 0  # scrolled: not all in view
                last = rows.get_option_at_index(19).id
                assert str(last).startswith(f"mcp__{server}__")
                names.update(str(rows.get_option_at_index(i).id) for i in range(20))
            assert len(names) == 100
            assert {f"mcp__srv{i}__tool_03" for i in range(5)} <= names
            await app.action_quit()
    finally:
        await manager.aclose()


async def test_each_prompt_shows_its_own_call(tmp_path: Path) -> None:
    """Asks one after another (what the benchmark's warm opens are): each prompt names its
    call, and none restyles itself whole as it first shows."""
    turns: list[dict[str, Any]] = [
        {
            "tool_calls": [
                {"id": f"c{i}", "name": "run_shell", "arguments": {"command": f"echo {i}"}}
            ]
        }
        for i in range(2)
    ]
    app = make_app(make_agent(tmp_path, [*turns, {"text": "done"}]))
    async with app.run_test(size=SIZE) as pilot:
        with restyled(app) as nodes:
            await submit(pilot, "go")
            for index in range(2):
                screen = await wait_approval(pilot)
                assert screen.ask.tool == "run_shell"
                assert screen.ask.input["command"] == f"echo {index}"
                assert screen not in nodes
                await pilot.press("n")
                await wait_for(pilot, lambda s=screen: app.screen is not s, "the prompt to close")


async def test_the_footer_is_built_once_as_a_screen_opens(tmp_path: Path) -> None:
    """The focus move, the window keys enabled and the screen's first show all signal the
    footer; one rebuild reads the keys they settle on (four identical ones were queued)."""
    agent = make_agent(tmp_path, [])
    shown = big_spill(agent, 100)
    app = make_app(agent)
    builds: list[str] = []
    compose = SteadyFooter.compose

    def counting(self: SteadyFooter) -> ComposeResult:
        if self._bindings_ready:
            builds.append(type(self.screen).__name__)
        return compose(self)

    SteadyFooter.compose = counting  # type: ignore[method-assign]
    try:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            builds.clear()
            browser = await open_browser(pilot, shown)
            await wait_for(pilot, lambda: browser.query(FooterKey), "the footer's keys")
            for _ in range(5):
                await pilot.pause()
            assert builds == ["SpillBrowser"]
            keys = {k.description: k for k in browser.query(FooterKey)}
            assert {"Next", "Prev", "End", "Copy"} <= set(keys)  # the viewer's and the window's
            assert not keys["End"].has_class("-disabled")
    finally:
        SteadyFooter.compose = compose  # type: ignore[method-assign]
