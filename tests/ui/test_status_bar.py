"""The status bar's MCP summary follows the servers' states (connected / failed)."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from agent_tui.core.events import UsageEvent
from agent_tui.core.mcp.client.manager import McpManager
from agent_tui.core.transcript import Usage
from agent_tui.ui.chat.notice import Notice
from agent_tui.ui.shell.events_bridge import AgentEvent
from tests.core.mcp.conftest import fixture_entry, write_config

from .helpers import SIZE, make_agent, make_app, wait_for


async def test_the_status_bar_counts_connected_and_failed_servers(tmp_path: Path) -> None:
    broken = {"command": str(tmp_path / "no-such-server")}
    write_config(tmp_path / ".mcp.json", {"fx": fixture_entry(), "gone": broken})
    agent = make_agent(tmp_path, [{"text": "unused"}])
    agent.tool_sources.append(McpManager(tmp_path, agent.registry, watch=False))
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        status = app.main.status
        await wait_for(
            pilot,
            lambda: (status.mcp_connected, status.mcp_failed) == (1, 1),
            "one server up, one failed",
            timeout=30,
        )
        assert str(status.query_one("#mcp").render()) == "MCP 1 connected · 1 failed"
        await app.action_quit()


async def test_no_mcp_summary_without_servers(tmp_path: Path) -> None:
    app = make_app(make_agent(tmp_path, []))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.main.status.query_one("#mcp").region.width == 0


def _usage(tokens: int, window: int, *, estimated: bool = False) -> UsageEvent:
    return UsageEvent(
        turn=Usage(input_tokens=tokens),
        session=Usage(input_tokens=tokens),
        context_tokens=tokens,
        context_window=window,
        percent=round(100 * tokens / window),
        estimated=estimated,
    )


async def test_the_context_meter_follows_the_usage_events(tmp_path: Path) -> None:
    app = make_app(make_agent(tmp_path, []))
    async with app.run_test(size=SIZE) as pilot:
        meter = app.main.status.query_one("#context", Static)
        await pilot.pause()
        assert meter.region.width == 0  # no figure yet: hidden
        for event, text, level in [
            (_usage(84_000, 200_000), "42% of 200k", None),
            (_usage(130_000, 200_000, estimated=True), "~65% of 200k", "-warn"),
            (_usage(120_000, 131_072), "92% of 128k", "-full"),
        ]:
            await app.on_agent_event(AgentEvent(event))
            await wait_for(pilot, lambda t=text: str(meter.render()) == t, text)  # type: ignore[misc]
            assert meter.has_class("-warn") == (level == "-warn")
            assert meter.has_class("-full") == (level == "-full")
        await app.action_quit()


async def test_a_real_turn_fills_the_meter_and_the_greeting_names_memory(
    tmp_path: Path,
) -> None:
    (tmp_path / "AGENTS.md").write_text("Be brief.\n")
    agent = make_agent(
        tmp_path, [{"text": "ok", "usage": {"input_tokens": 20_000, "output_tokens": 480}}]
    )
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        chat = app.main.chat
        await wait_for(
            pilot,
            lambda: "Memory: AGENTS.md" in [n.text for n in chat.query(Notice)],
            "the memory notice",
        )
        app.send("hi")
        meter = app.main.status.query_one("#context", Static)
        await wait_for(pilot, lambda: str(meter.render()) == "62% of 32k", "the meter")
        await app.action_quit()
