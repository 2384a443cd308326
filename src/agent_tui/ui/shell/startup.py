"""What mounting needs besides the widgets: MCP servers started in the background, and a
garbage collector tuned for a long-lived process."""

from __future__ import annotations

import gc

from agent_tui.core.agent import Agent


async def start_tool_sources(agent: Agent) -> None:
    """Start connecting MCP servers at launch, in the background: the app and the built-in
    tools are usable at once, and the first request waits only for servers still starting."""
    for source in agent.tool_sources:
        start = getattr(source, "start", None)
        if start is not None:
            await start()


def quiet_gc() -> None:
    """Keep garbage-collector pauses short: what start-up built lives as long as the app, so it
    is left out of every later collection (``gc.freeze``), and full collections — whose pause
    grows with the number of live objects — run a fifth as often."""
    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, 50)
