"""What mounting needs besides the widgets: MCP servers started in the background (the
garbage collector's tuning is ``heap``)."""

from __future__ import annotations

from agent_tui.core.agent.agent import Agent


async def start_tool_sources(agent: Agent) -> None:
    """Start connecting MCP servers at launch, in the background: the app and the built-in
    tools are usable at once, and a request waits only for eager servers still starting (a lazy
    one's tools join the first request after it connects: ``McpManager.wait_uncached``)."""
    for source in agent.tool_sources:
        start = getattr(source, "start", None)
        if start is not None:
            await start()
