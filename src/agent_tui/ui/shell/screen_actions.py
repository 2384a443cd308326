"""Opening the screens over the main one: the spill browser (ctrl+o, the palette, ``o`` on a
card) and the MCP panel (ctrl+g, the palette).

The screens are not imported at start-up: ``preload`` readies them in the background after
the first frame (``preload.py``), else they are imported when first opened.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.app import App

if TYPE_CHECKING:
    from collections.abc import Callable

    from agent_tui.core.agent.agent import Agent


def preload(
    app: App[Any], agent: Agent | None = None, then: Callable[[], object] | None = None
) -> None:
    """Import the screens opened later, parse their CSS and make the schemas of ``agent``'s
    tools, in a thread (after the first frame: nothing of it delays start-up); then ``then``,
    on the event loop."""
    from agent_tui.ui.shell.preload import preload as start

    start(app, agent.registry if agent is not None else None, then)


def open_spill(app: App[Any], agent: Agent, path: str = "", *, cursor_blink: bool) -> None:
    """Open the spill browser: on ``path`` (a card's spill pointer) at line 1, or on the
    newest spill. A path that is not an openable spill (outside the spill directory,
    missing, not a spill, not indexed) is refused with a notice saying why."""
    from agent_tui.core.browse import SpillRefused, resolve_spill
    from agent_tui.ui.spills.browser import SpillBrowser

    target = None
    if path:
        try:
            target = resolve_spill(agent.spills, path)
        except SpillRefused as refused:
            app.notify(str(refused), title="Cannot open the spill", severity="error")
            return
    if isinstance(app.screen, SpillBrowser):
        if target is not None:
            app.screen.open_spill(target)
        return
    browser = SpillBrowser(
        agent.spills,
        lambda: agent.messages,
        session_files=agent.sessions.all,
        path=target,
        cursor_blink=cursor_blink,
    )
    app.push_screen(browser)


def mcp_panel(app: App[Any], agent: Agent) -> None:
    """Open the MCP panel: servers, their status and their tools (closes it when open)."""
    from agent_tui.ui.mcp.panel import McpPanel

    if isinstance(app.screen, McpPanel):
        app.screen.dismiss(None)
        return
    app.push_screen(McpPanel.for_agent(agent))
