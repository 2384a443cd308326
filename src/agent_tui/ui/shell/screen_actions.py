"""Opening the screens over the main one: the spill browser (ctrl+o, the palette, ``o`` on a
card) and the MCP panel (ctrl+g, the palette).

The screens are imported when first opened, not at start-up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_tui.ui.app import AgentApp


def open_spill(app: AgentApp, path: str = "") -> None:
    """Open the spill browser: on ``path`` (a card's spill pointer) at line 1, or on the
    newest spill. A path that is not an openable spill (outside the spill directory,
    missing, not a spill, not indexed) is refused with a notice saying why."""
    from agent_tui.core.budget.browse import SpillRefused, resolve_spill
    from agent_tui.ui.spills.browser import SpillBrowser

    target = None
    if path:
        try:
            target = resolve_spill(app.agent.spills, path)
        except SpillRefused as refused:
            app.notify(str(refused), title="Cannot open the spill", severity="error")
            return
    if isinstance(app.screen, SpillBrowser):
        if target is not None:
            app.screen.open_spill(target)
        return
    browser = SpillBrowser(
        app.agent.spills,
        lambda: app.agent.messages,
        session_files=app.agent.sessions.all,
        path=target,
        cursor_blink=app.CURSOR_BLINK,
    )
    app.push_screen(browser)


def mcp_panel(app: AgentApp) -> None:
    """Open the MCP panel: servers, their status and their tools (closes it when open)."""
    from agent_tui.ui.mcp.panel import McpPanel

    if isinstance(app.screen, McpPanel):
        app.screen.dismiss(None)
        return
    app.push_screen(McpPanel.for_agent(app.agent))
