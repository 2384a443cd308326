"""When the app mounts: the themes, the session shown (status bar, greeting, the calls of a
resumed transcript in the chat and the lane), the MCP servers started in the background, and a
garbage collector tuned for a long-lived process."""

from __future__ import annotations

import gc
from typing import TYPE_CHECKING

from agent_tui.ui.shell import control_actions, session_actions
from agent_tui.ui.shell.themes import ThemeKeeper, install_themes

if TYPE_CHECKING:
    from agent_tui.core.agent import Agent
    from agent_tui.ui.app import AgentApp


def install_app_themes(app: AgentApp) -> list[str]:
    """Install the themes (the chosen one applied) and keep the one picked later; returns the
    problems with the theme files."""
    problems = install_themes(app, chosen=app.agent.settings.ui.theme)
    app.theme_keeper = ThemeKeeper(app, app.agent.settings.ui)
    return problems


async def show_session(app: AgentApp, problems: list[str]) -> None:
    """Fill the status bar and greet: warnings (the session's and ``problems``), then the
    transcript of a resumed session in the chat and its calls in the lane."""
    status = app.main.status
    status.model, status.demo, status.cwd = app.model, app.demo, app.cwd_label
    status.mode = control_actions.mode_label(app)
    status.input_tokens = app.agent.usage.input_tokens
    status.output_tokens = app.agent.usage.output_tokens
    warnings = [*(app.session.warnings if app.session else []), *problems]
    await app.main.chat.greet(warnings, demo=app.demo and not app.agent.messages)
    if app.agent.messages:
        session = app.session.session_id if app.session else None
        await session_actions.show_transcript(app, session)


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
