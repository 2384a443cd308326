"""What a slash command typed in the prompt does in the TUI.

``SlashActions.route(text)`` is called by the app's ``send`` first: plain text comes back (as
it is to be sent, ``//x`` as ``/x``); a custom command comes back expanded into its prompt; a
built-in runs the app's own action with its arguments (``/model openai:gpt-4o`` switches at
once, ``/model`` opens the picker) and answers whether it was accepted (the prompt is then
cleared); an unknown command is a notice and never reaches the model. An MCP prompt asks for
its missing required arguments (``ArgumentDialog``), is fetched in a worker, then sent; a
skill's ``/NAME request`` is loaded in a worker (``core.skills.invocation_prompt``), then sent.
A custom command with shell lines (``!`git status` ``), ``allowed-tools`` or ``model`` runs
its lines in a worker under the session's rules and its grant (``core.commands.grants``; an
ask is the usual permission prompt), then starts its turn with their output, the grant and
the model (``send_command``); it waits for a running turn to end. The turn's ``user_message``
says what it grants and what is not applied.

Built-ins that change the session (``/clear``, ``/model``, ``/resume``…) refuse while a turn
runs; ``/help``, ``/copy``, ``/spills``, ``/mcp`` and the like work any time.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from agent_tui.core.commands import CommandRegistry, Invocation, Plain, Unknown, help_text
from agent_tui.core.commands.command_shell import CommandShell
from agent_tui.core.commands.expand import CommandError, expand, missing_arguments
from agent_tui.core.commands.grants import CommandRun, command_run
from agent_tui.core.commands.shell_lines import has_shell_lines
from agent_tui.core.permissions import Mode
from agent_tui.core.skills import LOAD, invocation_prompt, listing, skill_commands
from agent_tui.ui.common.format import shorten_home

if TYPE_CHECKING:
    from textual.app import App

    from agent_tui.core.agent.agent import Agent
    from agent_tui.ui.approval.desk import ApprovalDesk
    from agent_tui.ui.shell.main_screen import MainScreen


class SlashHost(Protocol):
    """What of the app the commands use (``AgentApp``)."""

    agent: Agent
    desk: ApprovalDesk

    @property
    def main(self) -> MainScreen: ...

    def send(self, text: str) -> bool: ...

    def send_command(self, prompt: str, run: CommandRun) -> bool: ...

    async def new_session(self) -> bool: ...

    async def switch_model(self, spec: str) -> bool: ...

    async def resume(self, path: Path) -> bool: ...

    def set_mode(self, mode: Mode, *, otherwise: Mode | None = None) -> None: ...

    def compact(self, focus: str = "") -> bool: ...


def escape(text: str) -> str:
    """``text`` as ``send`` must get it to reach the model unchanged (a leading ``/`` is
    doubled, so it is not read as a command again)."""
    return "/" + text if text.startswith("/") else text


def prompt_sources(agent: Agent) -> list[Any]:
    """The tool sources that have MCP prompts (the MCP manager)."""
    return [s for s in agent.tool_sources if hasattr(s, "prompts") and hasattr(s, "get_prompt")]


class SlashActions:
    def __init__(self, app: App[Any], host: SlashHost, registry: CommandRegistry) -> None:
        self.app = app
        self.host = host
        self.registry = registry

    @classmethod
    def for_app(cls, app: App[Any], host: SlashHost) -> SlashActions:
        agent = host.agent

        def prompts() -> list[Any]:
            return [p for source in prompt_sources(agent) for p in source.prompts()]

        def skills() -> list[Any]:
            return skill_commands(agent.skills)

        registry = CommandRegistry.for_workspace(agent.cwd, prompts=prompts, skills=skills)
        return cls(app, host, registry)

    @property
    def busy(self) -> bool:
        return bool(getattr(self.app, "busy", False))

    async def report_problems(self) -> None:
        """The command files that were skipped or shadowed, as notices in the chat."""
        for problem in self.registry.problems:
            await self.host.main.chat.add_notice(problem, "warning")

    # -- routing ---------------------------------------------------------------------------

    def route(self, text: str) -> str | bool:
        """The text to send to the model, or whether the command was accepted."""
        parsed = self.registry.parse(text)
        if isinstance(parsed, Plain):
            return parsed.text
        if isinstance(parsed, Unknown):
            self.app.notify(parsed.message, title="Unknown command", severity="warning")
            return False
        return self.run(parsed)

    def run_name(self, name: str) -> None:
        """Run the command ``name`` with no arguments (the palette)."""
        command = self.registry.find(name)
        if command is None:
            self.app.notify(f"No command /{name}", severity="warning")
            return
        routed = self.run(Invocation(command, ""))
        if isinstance(routed, str):
            self.host.send(escape(routed))

    def run(self, invocation: Invocation) -> str | bool:
        command = invocation.command
        if command.custom is not None:
            rendered = command.custom.render(invocation.args)
            agent = self.host.agent
            run = command_run(
                command.custom,
                root=agent.cwd,
                trust=agent.trust,
                aliases=agent.settings.model.aliases,
            )
            if run is None and not has_shell_lines(rendered):
                return escape(rendered)
            if self.busy:
                self.app.notify(
                    f"/{command.name} runs shell lines or sets its turn's permissions or "
                    "model: send it after the turn ends.",
                    severity="warning",
                )
                return False
            return self._later(self._custom(invocation, run))
        if command.mcp is not None:
            self.app.run_worker(self._mcp_prompt(invocation), group="slash", exit_on_error=False)
            return True
        if command.action == LOAD:
            return self._later(self._skill(invocation))
        if self.busy and not command.while_busy:
            self.app.notify(
                f"/{command.name} cannot run while a turn runs: after it ends (Esc interrupts it).",
                severity="warning",
            )
            return False
        action = ACTIONS.get(command.action)
        if action is None:
            self.app.notify(f"/{command.name} is not available here", severity="warning")
            return False
        return action(self, invocation.args)

    async def _custom(self, invocation: Invocation, run: CommandRun | None) -> None:
        """A custom command with shell lines or a grant or model (``run``): run the lines
        under the session's rules and the grant (asks go to the permission prompt), then
        start its turn with their output and ``run``; each line that did not run is said."""
        grant = run.rules if run is not None else ()
        shell = CommandShell(self.host.agent.executor, self.host.desk.ask, grant)
        try:
            expanded = await expand(invocation, shell=shell)
        except asyncio.CancelledError:
            shell.interrupted.set()
            raise
        name = invocation.command.name
        for note in expanded.notes:
            self.app.notify(note, title=f"/{name}: shell line", severity="warning")
        if run is None:
            self.host.send(escape(expanded.prompt))
        else:
            self.host.send_command(expanded.prompt, run)

    async def _mcp_prompt(self, invocation: Invocation) -> None:
        prompt = invocation.command.mcp
        assert prompt is not None
        answers: dict[str, str] = {}
        from agent_tui.ui.shell.argument_dialog import ArgumentDialog

        for argument in missing_arguments(invocation):
            value = await self.app.push_screen_wait(
                ArgumentDialog(invocation.command.name, argument.name, argument.description)
            )
            if value is None:
                self.app.notify(f"/{invocation.command.name} cancelled")
                return
            answers[argument.name] = value
        sources = prompt_sources(self.host.agent)
        try:
            expanded = await expand(
                invocation, prompts=sources[0] if sources else None, answers=answers
            )
        except CommandError as exc:
            self.app.notify(str(exc), title="MCP prompt", severity="error")
            return
        self.host.send(escape(expanded.prompt))

    async def _skill(self, invocation: Invocation) -> None:
        agent = self.host.agent
        skill = agent.skills.find(invocation.command.name) if agent.skills else None
        if skill is None:
            self.app.notify(f"No skill {invocation.command.name} any more", severity="warning")
            return
        prompt = await asyncio.to_thread(invocation_prompt, skill, invocation.args, agent.cwd)
        self.host.send(escape(prompt))

    # -- the built-ins ---------------------------------------------------------------------

    def _later(self, work: Awaitable[Any]) -> bool:
        self.app.run_worker(work, group="slash", exit_on_error=False)
        return True

    def _action(self, name: str) -> bool:
        self._later(self.app.run_action(name))
        return True

    def help(self, args: str) -> bool:
        text = help_text(self.registry.commands(), self.registry.problems)
        return self._later(self.host.main.chat.add_notice(text, "info"))

    def new_session(self, args: str) -> bool:
        return self._later(self.host.new_session())

    def model(self, args: str) -> bool:
        if not args:
            return self._action("pick_model")
        return self._later(self.host.switch_model(args))

    def mode(self, args: str) -> bool:
        if not args:
            return self._action("pick_mode")
        try:
            mode = Mode(args.strip().lower())
        except ValueError:
            names = ", ".join(m.value for m in Mode)
            self.app.notify(f"No permission mode {args!r}: {names}", severity="error")
            return False
        if self.host.agent.policy.mode is None:
            self.app.notify("Permission modes are not available with this policy.")
            return False
        self.host.set_mode(mode)
        return True

    def resume(self, args: str) -> bool:
        if not args:
            return self._action("pick_session")
        found = self.host.agent.sessions.find(args.strip())
        if found is None:
            self.app.notify(f"No session {args.strip()!r} (/sessions lists them)", severity="error")
            return False
        return self._later(self.host.resume(found.path))

    def sessions(self, args: str) -> bool:
        return self._later(self._list_sessions())

    async def _list_sessions(self) -> None:
        from agent_tui.ui.shell.session_list import sessions_of

        agent = self.host.agent
        found = await asyncio.to_thread(sessions_of, agent.sessions, agent.cwd)
        current = agent.session.id if agent.session is not None else None
        if not found:
            text = "No saved session in this directory."
        else:
            lines = [f"Sessions of this directory ({len(found)}; /resume ID continues one):"]
            for s in found:
                mark = "  (this one)" if s.id == current else ""
                lines.append(f"  {s.id}  {s.created}  {s.model}  {s.title}{mark}")
            text = "\n".join(lines)
        await self.host.main.chat.add_notice(text, "info")

    def theme(self, args: str) -> bool:
        if not args:
            self.app.search_themes()
            return True
        name = args.strip()
        if name not in self.app.available_themes:
            names = ", ".join(sorted(self.app.available_themes))
            self.app.notify(f"No theme {name!r}: {names}", severity="error")
            return False
        self.app.theme = name
        self.app.notify(f"Theme: {name}")
        return True

    def compact(self, args: str) -> bool:
        return self.host.compact(args.strip())

    def context(self, args: str) -> bool:
        from agent_tui.ui.shell.context_text import context_text

        text = context_text(self.host.agent.context_breakdown())
        return self._later(self.host.main.chat.add_notice(text, "info"))

    def skills(self, args: str) -> bool:
        text = listing(self.host.agent.skills)
        return self._later(self.host.main.chat.add_notice(text, "info"))

    def memory(self, args: str) -> bool:
        from agent_tui.core.workspace.memory import memory_targets

        agent = self.host.agent
        targets = memory_targets(agent.memory)
        choice = args.strip()
        if not choice:
            loaded = {f.path for f in agent.memory.all_files}
            lines = ["Memory files (/memory N opens one in $EDITOR; the next turn reads it):"]
            for number, path in enumerate(targets, 1):
                state = "loaded" if path in loaded else "not there yet: opening creates it"
                lines.append(f"  {number}. {shorten_home(path)} — {state}")
            return self._later(self.host.main.chat.add_notice("\n".join(lines), "info"))
        if not choice.isdigit() or not 1 <= int(choice) <= len(targets):
            self.app.notify(f"/memory takes a number from 1 to {len(targets)}", severity="warning")
            return False
        return self._later(self._edit_memory(targets[int(choice) - 1]))

    async def _edit_memory(self, path: Path) -> None:
        from agent_tui.ui.shell.external_editor import edit_file

        problem = await edit_file(self.app, path)
        if problem is not None:
            self.app.notify(problem, title="/memory", severity="warning")
            return
        agent = self.host.agent
        agent.reload_memory()
        shown = ", ".join(f.shown for f in agent.memory.files) or "none"
        await self.host.main.chat.add_notice(f"Memory reloaded: {shown}", "info")

    def init(self, args: str) -> bool:
        words = args.split()
        if any(w != "--force" for w in words):
            self.app.notify("/init takes only --force", severity="warning")
            return False
        return self._later(self._init(force=bool(words)))

    async def _init(self, *, force: bool) -> None:
        from agent_tui.core.agent.memory_init import write_starter_memory
        from agent_tui.core.providers.base import ProviderError

        agent = self.host.agent
        chat = self.host.main.chat
        await chat.add_notice("Writing a starter AGENTS.md…", "muted")
        try:
            result = await write_starter_memory(agent.cwd, agent.provider, force=force)
        except ProviderError as exc:
            await chat.add_error("/init", f"The model request failed, nothing was written: {exc}")
            return
        except OSError as exc:
            await chat.add_error("/init", f"AGENTS.md could not be written: {exc}")
            return
        await chat.add_notice(result.message, "info" if result.written else "warning")
        if result.written:
            agent.reload_memory()

    def copy(self, args: str) -> bool:
        from agent_tui.ui.common.clipboard import copy

        answer = next(
            (
                m.content
                for m in reversed(self.host.agent.messages)
                if m.role == "assistant" and isinstance(m.content, str) and m.content.strip()
            ),
            None,
        )
        if answer is None:
            self.app.notify("No answer to copy yet.")
            return True
        lines = answer.count("\n") + 1
        copy(self.app, answer, f"Copied the last answer ({lines} line{'s' * (lines != 1)})")
        return True

    def export(self, args: str) -> bool:
        from agent_tui.ui.shell.exporting import export_now

        return self._later(export_now(self.app, self.host.agent, self.host.main.chat, args))

    def shells(self, args: str) -> bool:
        from agent_tui.ui.shell.job_view import open_shells

        open_shells(self.app, self.host.agent)
        return True


def _app_action(name: str) -> Callable[[SlashActions, str], bool]:
    def run(actions: SlashActions, args: str) -> bool:
        return actions._action(name)

    return run


ACTIONS: dict[str, Callable[[SlashActions, str], bool]] = {
    "help": SlashActions.help,
    "new_session": SlashActions.new_session,
    "model": SlashActions.model,
    "mode": SlashActions.mode,
    "resume": SlashActions.resume,
    "sessions": SlashActions.sessions,
    "theme": SlashActions.theme,
    "copy": SlashActions.copy,
    "export": SlashActions.export,
    "shells": SlashActions.shells,
    "compact": SlashActions.compact,
    "context": SlashActions.context,
    "init": SlashActions.init,
    "memory": SlashActions.memory,
    "skills": SlashActions.skills,
    **{
        name: _app_action(name)
        for name in ("clear_screen", "rewind", "fork", "open_spill", "mcp_panel", "toggle_lane")
    },
    "quit": _app_action("quit"),
}
"""The front end's side of each built-in's ``action`` (``core.commands.spec``)."""
