"""The command palette (Ctrl+P): model, permission mode, theme, sessions, the lane, and the
screens later issues add (spill browser, MCP panel).

``system_commands`` yields the entries; a picker ("Switch model…") opens a second palette
listing the choices, built when it opens.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from textual.app import SystemCommand
from textual.command import SimpleCommand

from agent_tui.core.permissions import Mode
from agent_tui.ui.shell import session_actions
from agent_tui.ui.shell.models import model_specs

if TYPE_CHECKING:
    from agent_tui.ui.app import AgentApp
    from agent_tui.ui.shell.session_list import SessionSummary


def system_commands(app: AgentApp) -> Iterator[SystemCommand]:
    yield SystemCommand(
        "Switch model", "Choose the model for the next turns", lambda: pick_model(app)
    )
    yield SystemCommand(
        "Permission mode", "default, accept-edits, plan or bypass", lambda: pick_mode(app)
    )
    yield SystemCommand(
        "New session",
        "Start over with an empty transcript",
        lambda: session_actions.new_session(app),
    )
    yield SystemCommand(
        "Resume a session", "Continue a saved session of this directory", app.pick_session
    )
    yield SystemCommand(
        "Toggle the tool lane",
        "Show or hide the tool-call lane (ctrl+t)",
        app.main.action_toggle_lane,
    )
    yield SystemCommand(
        "Open the spill browser",
        "Browse the full outputs saved to disk (ctrl+o)",
        app.action_open_spill,
    )
    yield SystemCommand(
        "MCP panel",
        "MCP servers, their status and their tools (ctrl+g)",
        app.action_mcp_panel,
    )


def pick_model(app: AgentApp) -> None:
    current = app.agent.provider.name
    choices = [
        SimpleCommand(
            f"{spec}{'  (current)' if spec == current else ''}",
            lambda spec=spec: session_actions.switch_model(app, spec),
            "the offline demo model" if spec == "demo" else None,
        )
        for spec in model_specs(current)
    ]
    app.search_commands(choices, placeholder="Switch the model to…")


def pick_mode(app: AgentApp) -> None:
    current = app.agent.policy.mode
    if current is None:
        app.notify("Permission modes are not available with this policy.")
        return
    choices = [
        SimpleCommand(
            f"{mode.value}{'  (current)' if mode is current else ''}",
            lambda mode=mode: app.set_mode(mode),
            mode.describe,
        )
        for mode in Mode
    ]
    app.search_commands(choices, placeholder="Permission mode…")


def pick_session(app: AgentApp, sessions: list[SessionSummary]) -> None:
    current = app.agent.session.id if app.agent.session is not None else None
    choices = [
        SimpleCommand(
            f"{s.title}",
            lambda s=s: session_actions.resume_session(app, s.path),
            f"{s.created} · {s.model} · {s.id}",
        )
        for s in sessions
        if s.id != current
    ]
    if not choices:
        app.notify("No other saved session in this directory.")
        return
    app.search_commands(choices, placeholder="Resume the session…")
