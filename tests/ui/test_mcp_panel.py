"""The MCP panel with real servers: SDK fixture servers (one that works, one that exits at start,
one whose command is missing until the test writes it, a broken entry) and the reference
``everything`` server. Statuses, tool lists with disclosure marks and permissions, the schema
dialog, reconnect after a fix, disable/enable remembered across apps, live configuration edits,
tool list changes, and the empty state."""

from __future__ import annotations

import contextlib
import json
import shlex
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from textual.command import CommandPalette
from textual.pilot import Pilot

from agent_tui.core.disclosure import Disclosure, DisclosureSettings
from agent_tui.core.mcp.client.manager import McpManager
from agent_tui.core.permissions.setup import build_pipeline
from agent_tui.core.settings import local_settings_path
from agent_tui.core.tools.base import ToolContext
from agent_tui.ui.mcp import panel as mcp_panel
from agent_tui.ui.mcp.empty_state import EmptyState
from agent_tui.ui.mcp.fact_row import FactRow
from agent_tui.ui.mcp.panel import McpPanel
from agent_tui.ui.mcp.problems_block import ProblemsBlock
from agent_tui.ui.mcp.schema_dialog import SchemaDialog
from agent_tui.ui.mcp.server_list import ServerList
from agent_tui.ui.mcp.stderr_tail import StderrTail
from agent_tui.ui.mcp.tool_summary import ToolSummary
from agent_tui.ui.mcp.tool_table import ToolTable
from agent_tui.ui.shell.main_screen import MainScreen
from tests.core.mcp.conftest import fixture_entry, npm_bin, write_config
from tests.core.mcp.servers import fixture_pids
from tests.core.tools.conftest import wait_until

from .helpers import QuietApp, make_agent, make_app, wait_for

__all__ = ["npm_bin"]  # the fixture, used by name below
SIZE = (140, 44)
CONNECT = 30.0


def panel_app(
    cwd: Path, *, settings: DisclosureSettings | None = None
) -> tuple[QuietApp, McpManager]:
    """The app as the CLI builds it for the TUI: permission pipeline from the settings files,
    disclosure, and a manager that watches the configuration."""
    agent = make_agent(cwd, [{"text": "unused"}])
    agent.policy = agent.executor.policy = build_pipeline(cwd).pipeline
    agent.disclosure = Disclosure(agent.registry, settings)
    manager = McpManager(cwd, agent.registry, watch=True)
    agent.tool_sources.append(manager)
    return make_app(agent), manager


@contextlib.asynccontextmanager
async def running(app: QuietApp, manager: McpManager) -> AsyncIterator[Pilot[Any]]:
    """Run the app; quit it as a user would; stop the servers even when the test fails."""
    try:
        async with app.run_test(size=SIZE) as pilot:
            yield pilot
            await app.action_quit()
    finally:
        await manager.aclose()


async def open_panel(pilot: Pilot[Any]) -> McpPanel:
    await pilot.press("ctrl+g")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, McpPanel), "the MCP panel")
    assert isinstance(pilot.app.screen, McpPanel)
    return pilot.app.screen


def servers(panel: McpPanel) -> dict[str, str]:
    """Each server's line in the list, as shown."""
    listing = panel.query_one(ServerList)
    lines = [listing.get_option_at_index(i) for i in range(listing.option_count)]
    return {str(o.id): " ".join(str(o.prompt).split()) for o in lines}


def tools(panel: McpPanel) -> dict[str, str]:
    """Each tool's line in the tool list, as shown."""
    rows = panel.query_one(ToolTable).options
    lines = [rows.get_option_at_index(i) for i in range(rows.option_count)]
    return {str(o.id): " ".join(str(o.prompt).split()) for o in lines}


def fact(panel: McpPanel, key: str) -> str:
    """A line of the server details (``status``, ``reason``…) or of the tool summary."""
    row = panel.query_one(f"#{key}" if key.startswith("summary-") else f"#fact-{key}", FactRow)
    return row.value.plain if row.display and row.value is not None else ""


async def select_server(pilot: Pilot[Any], panel: McpPanel, name: str) -> None:
    listing = panel.query_one(ServerList)
    listing.focus()
    for _ in range(listing.option_count):
        if listing.selected == name:
            break
        await pilot.press("down")
    assert listing.selected == name
    await pilot.pause()


async def select_tool(pilot: Pilot[Any], panel: McpPanel, name: str) -> None:
    table = panel.query_one(ToolTable)
    assert table.focus_rows()
    await pilot.press("home")
    for _ in range(len(table.rows)):
        if table.selected is not None and table.selected.name == name:
            break
        await pilot.press("down")
    assert table.selected is not None
    assert table.selected.name == name
    await pilot.pause()


def notices(app: QuietApp) -> list[str]:
    return [n.message for n in app._notifications]


async def test_statuses_tools_reconnect_disable_and_live_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mark = f"panel-{uuid.uuid4().hex[:8]}"
    late = tmp_path / "late-server"
    config = write_config(
        tmp_path / ".mcp.json",
        {
            "fx": fixture_entry(name=mark),
            "dies": fixture_entry("exit-at-start", name=mark),
            "late": {"command": str(late)},
            "bad": {"command": 1},
        },
    )
    (tmp_path / ".agent-tui").mkdir()
    (tmp_path / ".agent-tui" / "settings.json").write_text(
        json.dumps({"permissions": {"allow": ["mcp__fx__crash"]}})
    )
    app, manager = panel_app(tmp_path)
    async with running(app, manager) as pilot:
        panel = await open_panel(pilot)
        await wait_for(
            pilot,
            lambda: (
                servers(panel).get("fx", "").endswith("16 tools")
                and "failed" in servers(panel).get("dies", "")
            ),
            "fx to connect and dies to fail",
            CONNECT,
        )
        shown = servers(panel)
        assert list(shown) == ["bad", "dies", "fx", "late"]
        assert shown["bad"] == "✗ bad failed"
        assert shown["late"] == "✗ late failed"
        assert panel.sub_title == "1 connected · 3 failed"

        # A broken entry: failed, why, and the problem with its file.
        assert panel.query_one(ServerList).selected == "bad"
        assert "$.command" in fact(panel, "reason")
        assert "fix its entry" in fact(panel, "hint")
        problems = panel.query_one(ProblemsBlock)
        assert problems.display
        assert [(p.path, p.server) for p in problems.problems] == [(config, "bad")]
        await pilot.press("r")
        await wait_for(pilot, lambda: any("cannot start" in n for n in notices(app)), "refusal")

        # A server that exits at start: the reason and its stderr tail.
        await select_server(pilot, panel, "dies")
        assert fact(panel, "reason") == "the server exited during start-up"
        assert "fixture: bad configuration, giving up" in panel.query_one(StderrTail).lines
        assert panel.query_one(StderrTail).display
        assert panel.query_one(ToolTable).has_class("-empty")

        # A connected server: details, tools with deferred marks and the applying rule.
        await select_server(pilot, panel, "fx")
        assert fact(panel, "status").startswith("● connected  in ")
        assert fact(panel, "transport") == "stdio"
        assert "fixture_server.py --mode normal" in fact(panel, "target")
        assert fact(panel, "protocol")
        assert fact(panel, "server").startswith(mark)
        assert fact(panel, "tools") == "16 tools · 16 deferred"
        assert fact(panel, "config") == str(config)
        rows = tools(panel)
        assert len(rows) == 16
        assert all(" deferred " in line for line in rows.values())
        assert rows["mcp__fx__echo"].startswith(
            "mcp__fx__echo deferred read-only allow · read-only"
        )
        assert "destructive allow · its own rule" in rows["mcp__fx__crash"]
        assert "destructive ask · not read-only" in rows["mcp__fx__fail"]
        cost = str(panel.query_one("#cost").render())
        assert "tokens per request with disclosure" in cost
        # its tools, the two resource tools, and update_plan and web_fetch
        assert "20 deferred tools reachable through search_tool" in cost

        await select_tool(pilot, panel, "mcp__fx__crash")
        assert fact(panel, "summary-permission") == (
            f"allow — allowed by the rule mcp__fx__crash (from {tmp_path}/.agent-tui/settings.json)"
        )

        # Enter on a tool: its input schema; Esc closes.
        await select_tool(pilot, panel, "mcp__fx__echo")
        summary = panel.query_one(ToolSummary)
        assert summary.tool is not None
        assert summary.tool.name == "mcp__fx__echo"
        assert "is read-only" in fact(panel, "summary-permission")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, SchemaDialog), "the schema")
        dialog = app.screen
        assert isinstance(dialog, SchemaDialog)
        assert dialog.tool.schema["properties"]["text"]["type"] == "string"
        assert '"required"' in str(dialog.query_one("#schema").render())
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is panel, "the schema to close")

        # tools/list_changed: the new tool shows up; the selection stays on echo.
        ctx = ToolContext(cwd=tmp_path, call_id="t")
        await manager.call("fx", "add_tool", {"tool_name": "brand_new"}, ctx)
        await wait_for(pilot, lambda: "mcp__fx__brand_new" in tools(panel), "the new tool")
        assert panel.query_one(ToolTable).selected.name == "mcp__fx__echo"  # type: ignore[union-attr]
        assert fact(panel, "tools") == "17 tools · 17 deferred"

        # Reconnect after the cause is fixed.
        await pilot.press("tab")
        assert panel.query_one(ServerList).has_focus
        await select_server(pilot, panel, "late")
        assert "not found" in fact(panel, "reason")
        entry = fixture_entry(name=mark)
        late.write_text(f"#!/bin/sh\nexec {shlex.join([entry['command'], *entry['args']])}\n")
        late.chmod(0o755)
        await pilot.press("r")
        await wait_for(
            pilot, lambda: fact(panel, "status").startswith("● connected"), "late", CONNECT
        )
        assert "mcp__late__echo" in tools(panel)
        assert panel.query_one(ServerList).selected == "late"

        # Disable (remembered for the project), then enable again.
        local = local_settings_path(tmp_path)
        await pilot.press("d")
        await wait_for(pilot, lambda: servers(panel)["late"] == "○ late disabled", "disabled")
        assert json.loads(local.read_text()) == {"mcp": {"disabled": ["late"]}}
        assert "remembered in .agent-tui/settings.local.json" in fact(panel, "reason")
        assert fact(panel, "hint") == "d enables it"
        await wait_for(pilot, lambda: any("late disabled;" in n for n in notices(app)), "notice")
        await pilot.press("r")
        await wait_for(pilot, lambda: any("d enables it" in n for n in notices(app)), "refusal")
        await pilot.press("d")
        await wait_for(
            pilot, lambda: servers(panel)["late"].endswith("tools"), "late again", CONNECT
        )
        assert "late" not in json.loads(local.read_text()).get("mcp", {}).get("disabled", [])

        # o without an editor: the path of the selected server's file, copied.
        monkeypatch.delenv("VISUAL", raising=False)
        monkeypatch.delenv("EDITOR", raising=False)
        await pilot.press("o")
        assert app.clipboard == str(config)
        assert any(n.startswith(str(config)) and "copied" in n for n in notices(app))

        # A configuration edit is picked up live: a server added, the broken entry fixed.
        await wait_until(manager.watching.is_set, CONNECT, "the configuration watch")
        write_config(
            config,
            {
                "fx": fixture_entry(name=mark),
                "dies": fixture_entry("exit-at-start", name=mark),
                "late": {"command": str(late)},
                "bad": fixture_entry(name=mark),
                "extra": fixture_entry(name=mark),
            },
        )
        await wait_for(
            pilot,
            lambda: (
                servers(panel).get("extra", "").endswith("16 tools")
                and servers(panel)["bad"].endswith("16 tools")
            ),
            "the edited configuration",
            CONNECT,
        )
        assert not panel.query_one(ProblemsBlock).display
        assert panel.query_one(ServerList).selected == "late"  # still the same server

        # q closes the panel and it stops listening; ctrl+g opens and closes it.
        listeners = len(manager._listeners)
        await pilot.press("q")
        await wait_for(pilot, lambda: isinstance(app.screen, MainScreen), "the main screen")
        assert len(manager._listeners) == listeners - 1
        await open_panel(pilot)
        await pilot.press("ctrl+g")
        await wait_for(pilot, lambda: isinstance(app.screen, MainScreen), "closed by ctrl+g")
    await wait_until(lambda: not fixture_pids(mark), CONNECT, "every server to exit")


async def test_disabled_stays_disabled_in_a_new_app(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No periodic refresh: every change below must reach the panel through the listener.
    monkeypatch.setattr(mcp_panel, "REFRESH_SECONDS", 3600.0)
    mark = f"again-{uuid.uuid4().hex[:8]}"
    write_config(tmp_path / ".mcp.json", {"fx": fixture_entry(name=mark)})
    app, manager = panel_app(tmp_path)
    async with running(app, manager) as pilot:
        panel = await open_panel(pilot)
        await wait_for(pilot, lambda: servers(panel)["fx"].endswith("tools"), "fx", CONNECT)
        await pilot.press("d")
        await wait_for(pilot, lambda: servers(panel)["fx"] == "○ fx disabled", "disabled")
    await wait_until(lambda: not fixture_pids(mark), CONNECT, "fx to exit")

    app, manager = panel_app(tmp_path)
    async with running(app, manager) as pilot:
        panel = await open_panel(pilot)
        await pilot.pause(0.5)
        assert servers(panel)["fx"] == "○ fx disabled"
        assert fact(panel, "reason") == (
            "turned off for this project (remembered in .agent-tui/settings.local.json)"
        )
        assert not fixture_pids(mark)  # never started
        assert "mcp__fx__echo" not in manager.registry
        await pilot.press("d")
        await wait_for(pilot, lambda: servers(panel)["fx"].endswith("16 tools"), "fx", CONNECT)
    assert json.loads(local_settings_path(tmp_path).read_text()) == {}


async def test_everything_server_with_every_disclosure_mark(tmp_path: Path, npm_bin: Path) -> None:
    write_config(
        tmp_path / ".mcp.json", {"everything": {"command": str(npm_bin / "mcp-server-everything")}}
    )
    settings = DisclosureSettings(promote=["mcp__everything__echo"])
    app, manager = panel_app(tmp_path, settings=settings)
    async with running(app, manager) as pilot:
        # From the command palette this time.
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette), "the palette")
        await pilot.press(*"MCP panel", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, McpPanel), "the MCP panel")
        panel = app.screen
        assert isinstance(panel, McpPanel)
        await wait_for(
            pilot,
            lambda: servers(panel).get("everything", "").endswith("tools"),
            "everything to connect",
            CONNECT,
        )
        state = manager.state("everything")
        assert fact(panel, "protocol") == state.protocol_version
        assert fact(panel, "server") == state.server_info
        assert "mcp-server-everything" in fact(panel, "target")
        rows = tools(panel)
        assert len(rows) == state.tool_count >= 10
        assert " promoted " in rows["mcp__everything__echo"]
        assert " deferred " in rows["mcp__everything__get-sum"]
        assert "allow · read-only" in rows["mcp__everything__get-sum"]
        assert "ask · not read-only" in rows["mcp__everything__toggle-simulated-logging"]

        # The model finds a tool with search_tool: it shows as unmasked (no event for that;
        # the panel looks again every second).
        assert agent_disclosure(app).search("sum of two numbers", limit=1)
        await wait_for(
            pilot,
            lambda: " unmasked " in tools(panel)["mcp__everything__get-sum"],
            "the unmasked mark",
        )
        assert "(1 found so far)" in str(panel.query_one("#cost").render())


def agent_disclosure(app: QuietApp) -> Disclosure:
    assert app.agent.disclosure is not None
    return app.agent.disclosure


async def test_empty_state_then_a_broken_file_then_a_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mark = f"empty-{uuid.uuid4().hex[:8]}"
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    app, manager = panel_app(tmp_path)
    async with running(app, manager) as pilot:
        panel = await open_panel(pilot)
        empty = panel.query_one(EmptyState)
        assert panel.has_class("-empty")
        assert empty.display
        text = str(empty.render())
        assert "No MCP servers configured." in text
        assert str(tmp_path / ".mcp.json") in text
        assert str(tmp_path / "config" / "mcp.json") in text
        assert "agent-tui mcp add NAME COMMAND [ARGS...]" in text
        assert '"mcpServers"' in text
        await pilot.press("o")
        assert app.clipboard == str(tmp_path / ".mcp.json")
        assert any("does not exist yet" in n for n in notices(app))

        await wait_until(manager.watching.is_set, CONNECT, "the configuration watch")
        (tmp_path / ".mcp.json").write_text('{"mcpServers": {"fx": ')
        problems = panel.query_one(ProblemsBlock)
        await wait_for(pilot, lambda: problems.display, "the problem", CONNECT)
        assert "is not valid JSON" in problems.problems[0].message
        assert problems.problems[0].path == tmp_path / ".mcp.json"

        write_config(tmp_path / ".mcp.json", {"fx": fixture_entry(name=mark)})
        await wait_for(
            pilot, lambda: servers(panel).get("fx", "").endswith("16 tools"), "fx", CONNECT
        )
        assert not panel.has_class("-empty")
        assert not empty.display
        assert not problems.display
    await wait_until(lambda: not fixture_pids(mark), CONNECT, "fx to exit")


async def test_a_config_broken_mid_run_says_so_in_the_title_and_the_body(tmp_path: Path) -> None:
    mark = f"broken-{uuid.uuid4().hex[:8]}"
    config = write_config(
        tmp_path / ".mcp.json", {"a": fixture_entry(name=mark), "b": fixture_entry(name=mark)}
    )
    app, manager = panel_app(tmp_path)
    async with running(app, manager) as pilot:
        panel = await open_panel(pilot)
        await wait_for(pilot, lambda: panel.sub_title == "2 connected", "a and b", CONNECT)
        await wait_until(manager.watching.is_set, CONNECT, "the configuration watch")
        pids = fixture_pids(mark)

        config.write_text('{"mcpServers": {"a": ', encoding="utf-8")  # a typo mid-edit
        problems = panel.query_one(ProblemsBlock)
        await wait_for(pilot, lambda: problems.display, "the problem", CONNECT)
        assert panel.sub_title == ".mcp.json is broken: its 2 servers kept as before · 2 connected"
        [problem] = problems.problems
        assert problem.path == config
        assert problem.message == (
            "is not valid JSON: Expecting value at line 1 column 22; its servers (a, b) stay "
            "as before this change (running or not, with the configuration they had); the "
            "change applies once the file is fixed"
        )
        assert "no server of this file is loaded" not in problem.message
        # What the title and the problem say is what the manager does: both still run.
        assert [s.status for s in manager.states()] == ["connected", "connected"]
        assert fixture_pids(mark) == pids
        assert servers(panel)["a"].endswith("16 tools")

        write_config(config, {"a": fixture_entry(name=mark)})  # fixed: the change applies
        await wait_for(pilot, lambda: panel.sub_title == "1 connected", "b to go", CONNECT)
        assert not problems.display


async def test_a_config_broken_at_start_is_not_called_empty(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    config = tmp_path / ".mcp.json"
    config.write_text('{"mcpServers": {"a": ', encoding="utf-8")
    app, manager = panel_app(tmp_path)
    async with running(app, manager) as pilot:
        panel = await open_panel(pilot)
        assert panel.sub_title == ".mcp.json is broken: nothing loaded from it · no servers"
        text = str(panel.query_one(EmptyState).render())
        assert f"No MCP server is loaded: {config} cannot be used." in text
        assert "No MCP servers configured" not in text
        [problem] = panel.query_one(ProblemsBlock).problems
        assert problem.message.endswith("; no server of this file is loaded")
        await pilot.press("o")
        assert app.clipboard == str(config)
