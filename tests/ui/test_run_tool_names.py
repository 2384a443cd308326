"""A deferred MCP tool called through ``run_tool`` is named as itself (issue 41, item 7): the
approval prompt asks "Allow fail from the MCP server fx?" with the tool's own arguments, and
the lane card, the chat row and the resumed transcript name ``mcp__fx__fail`` — never the
proxy and its ``{"name", "input"}`` wrapper. With the real fixture MCP server."""

from __future__ import annotations

import sys
import uuid
from pathlib import Path

from textual.widgets import Static

from agent_tui.core.conversation.replay import transcript_events
from agent_tui.core.disclosure import Disclosure, DisclosureSettings
from agent_tui.core.events import ToolUse
from agent_tui.core.mcp.client.manager import McpManager
from agent_tui.core.providers.anthropic import to_anthropic_messages
from agent_tui.ui.calls.state import CallStatus
from agent_tui.ui.chat import ToolLine
from tests.core.mcp.conftest import FIXTURE, write_config

from .helpers import SIZE, make_agent, make_app, submit, wait_approval, wait_for, wait_idle


async def test_an_mcp_tool_through_run_tool_is_asked_and_shown_by_its_name(
    tmp_path: Path,
) -> None:
    marker = f"runtool-{uuid.uuid4().hex[:8]}"
    server = {"command": sys.executable, "args": [str(FIXTURE), "--name", marker]}
    write_config(tmp_path / ".mcp.json", {"fx": server})
    arguments = {"name": "mcp__fx__fail", "input": {"reason": "hello from the proxy"}}
    call = {"id": "c1", "name": "run_tool", "arguments": arguments}
    agent = make_agent(tmp_path, [{"tool_calls": [call]}, {"text": "done"}])
    agent.disclosure = Disclosure(agent.registry, DisclosureSettings(deferred="auto:0"))
    manager = McpManager(tmp_path, agent.registry, disclosure=agent.disclosure)
    agent.tool_sources.append(manager)
    app = make_app(agent)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: manager.state("fx").status == "connected", "fx up")
            await submit(pilot, "echo something")
            prompt = await wait_approval(pilot)
            dialog = prompt.query_one("#dialog")
            assert dialog.border_title == "Allow fail from the MCP server fx?"
            details = str(prompt.query_one("#details Static", Static).render())
            assert "hello from the proxy" in details
            assert "run_tool" not in details
            assert '"input"' not in details
            card = app.main.lane.cards["c1"]
            assert card.call.name == "mcp__fx__fail"
            assert card.call.input == {"reason": "hello from the proxy"}
            await pilot.press("y")
            await wait_idle(pilot)
            assert card.call.status is CallStatus.ERROR  # the tool's answer: it fails
            assert "hello from the proxy" in card.call.content
            (line,) = app.main.chat.query(ToolLine)
            row = str(line.build_content())
            assert row.startswith("● mcp__fx__fail")
            assert "run_tool" not in row
            # resumed, the transcript shows what ran, as live
            uses = [e for e in transcript_events(agent.messages) if isinstance(e, ToolUse)]
            assert [(u.name, u.input) for u in uses] == [
                ("mcp__fx__fail", {"reason": "hello from the proxy"})
            ]
            # the model's own call is kept as it sent it
            sent = [c.name for m in agent.messages if m.tool_calls for c in m.tool_calls]
            assert sent == ["run_tool"]
            # and sent again so: the request's tools name the proxy, not its deferred target
            wire = to_anthropic_messages(agent.messages)
            uses = [b for m in wire for b in m["content"] if b["type"] == "tool_use"]
            assert [(b["name"], b["input"]) for b in uses] == [("run_tool", arguments)]
            await app.action_quit()
    finally:
        await manager.aclose()
