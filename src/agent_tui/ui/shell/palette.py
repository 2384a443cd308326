"""The command palette (Ctrl+P): the app's entries as a ``textual.command.Provider`` that runs
actions, and the pickers some entries open (a second palette listing the choices).

Nothing here knows the app's class: entries name actions (``app.run_action``), and pickers get
the choices and what to do with the one picked.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial
from typing import TYPE_CHECKING, Any

from textual.app import App
from textual.command import DiscoveryHit, Hit, Hits, Provider, SimpleCommand

from agent_tui.core.permissions import Mode
from agent_tui.ui.shell.models import model_specs

if TYPE_CHECKING:
    from agent_tui.ui.shell.session_list import SessionSummary

ENTRIES: tuple[tuple[str, str, str], ...] = (
    ("New conversation", "Start over: the model forgets this one (ctrl+l)", "new_session"),
    (
        "Clear the screen",
        "Clear the chat and the lane; the model keeps the context",
        "clear_screen",
    ),
    ("Switch model", "Choose the model for the next turns", "pick_model"),
    ("Permission mode", "default, accept-edits, plan or bypass", "pick_mode"),
    ("Resume a session", "Continue a saved session of this directory", "pick_session"),
    (
        "Rewind",
        "Go back to before a turn: its code, the conversation or both (/rewind)",
        "rewind",
    ),
    (
        "Fork the session",
        "Continue in a copy of this session; the original stays as it was (/fork)",
        "fork",
    ),
    ("Toggle the tool lane", "Show or hide the tool-call lane (ctrl+t)", "toggle_lane"),
    ("Open the spill browser", "Browse the full outputs saved to disk (ctrl+o)", "open_spill"),
    ("MCP panel", "MCP servers, their status and their tools (ctrl+g)", "mcp_panel"),
)
"""(name, help, app action) of each entry."""


class AgentCommands(Provider):
    """The app's own palette entries (next to Textual's: theme, keys, quit…)."""

    def _run(self, action: str) -> Callable[[], Any]:
        return partial(self.app.run_action, action)

    async def discover(self) -> Hits:
        for name, help, action in ENTRIES:
            yield DiscoveryHit(name, self._run(action), help=help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, help, action in ENTRIES:
            if (score := matcher.match(name)) > 0:
                yield Hit(score, matcher.highlight(name), self._run(action), help=help)


def pick_model(app: App[Any], current: str, switch: Callable[[str], Any]) -> None:
    choices = [
        SimpleCommand(
            f"{spec}{'  (current)' if spec == current else ''}",
            partial(switch, spec),
            "the offline demo model" if spec == "demo" else None,
        )
        for spec in model_specs(current)
    ]
    app.search_commands(choices, placeholder="Switch the model to…")


def pick_mode(app: App[Any], current: Mode, choose: Callable[[Mode], Any]) -> None:
    choices = [
        SimpleCommand(
            f"{mode.value}{'  (current)' if mode is current else ''}",
            partial(choose, mode),
            mode.describe,
        )
        for mode in Mode
    ]
    app.search_commands(choices, placeholder="Permission mode…")


def pick_session(
    app: App[Any],
    sessions: Iterable[SessionSummary],
    current: str | None,
    resume: Callable[[SessionSummary], Any],
) -> None:
    choices = [
        SimpleCommand(s.title, partial(resume, s), f"{s.created} · {s.model} · {s.id}")
        for s in sessions
        if s.id != current
    ]
    if not choices:
        app.notify("No other saved session in this directory.")
        return
    app.search_commands(choices, placeholder="Resume the session…")
