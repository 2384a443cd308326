"""The command palette (Ctrl+P): the command registry's entries as a
``textual.command.Provider``, and the pickers some entries open (a second palette listing the
choices).

Nothing here knows the app's class: an entry runs the app's ``command`` action (the slash
command, no arguments), and pickers get the choices and what to do with the one picked.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial
from typing import TYPE_CHECKING, Any

from textual.app import App
from textual.command import DiscoveryHit, Hit, Hits, Provider, SimpleCommand

if TYPE_CHECKING:  # imported when used: the app's first frame imports this module
    from agent_tui.core.permissions import Mode
    from agent_tui.ui.shell.session_list import SessionSummary


def entries(app: App[Any]) -> list[tuple[str, str, str]]:
    """(title, help, command name) of each palette entry: the registry's built-ins that have
    a palette title, then the custom commands and MCP prompts (as ``/name``)."""
    from agent_tui.core.commands import CommandRegistry

    registry = getattr(app, "command_registry", None)
    if not isinstance(registry, CommandRegistry):
        registry = CommandRegistry()
    found = [(c.palette, c.description, c.name) for c in registry.palette_commands()]
    found += [
        (f"/{c.name}", f"{c.description} ({c.source})", c.name)
        for c in registry.commands()
        if c.kind != "builtin"
    ]
    return found


class AgentCommands(Provider):
    """The app's palette entries: the command registry's (``core.commands``), each running
    its slash command with no arguments, then Textual's own (theme, quit, keys, maximize,
    screenshot: ``App.get_system_commands``). One provider, so ours always come first: with
    Textual's provider beside it, the order was whichever answered first."""

    def _run(self, name: str) -> Callable[[], Any]:
        return partial(self.app.run_action, f"command({name!r})")

    def _textuals(self) -> list[tuple[str, str, Callable[[], Any], bool]]:
        found = self.app.get_system_commands(self.screen)
        return sorted(((c.title, c.help, c.callback, c.discover) for c in found), key=_first)

    async def discover(self) -> Hits:
        for title, help, name in entries(self.app):
            yield DiscoveryHit(title, self._run(name), help=help)
        for title, help, callback, shown in self._textuals():
            if shown:
                yield DiscoveryHit(title, callback, help=help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        found = [(title, help, self._run(name)) for title, help, name in entries(self.app)]
        found += [(title, help, callback) for title, help, callback, _ in self._textuals()]
        for title, help, run in found:
            if (score := matcher.match(title)) > 0:
                yield Hit(score, matcher.highlight(title), run, help=help)


def _first(item: tuple[str, str, Callable[[], Any], bool]) -> str:
    return item[0]


def pick_model(app: App[Any], current: str, switch: Callable[[str], Any]) -> None:
    from agent_tui.ui.shell.models import model_specs

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
    from agent_tui.core.permissions import Mode

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
