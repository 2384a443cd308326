"""A prompt that starts with ``/``, for the front ends without the TUI's screens (headless
``-p``, ACP): the prompt the model gets, or the text to show instead.

A custom command or an MCP prompt is expanded (a missing required argument of an MCP prompt
is an error naming it; a custom command's shell lines run under the session's rules and its
``allowed-tools`` — ``core.commands.grants``: a project's only once trusted —, their asks go
to ``asker``, or are refused when there is none, and a refused line is a note; its grant and
``model`` go with the turn, ``SlashPrompt.run``); a skill's ``/NAME request`` loads it into
the prompt; ``/help`` and ``/skills`` answer with the lists; the other built-ins act on the
TUI's screens and are answered with the front end's ``needs_tui`` message; ``//x`` sends
``/x``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from agent_tui.core.agent.agent import Agent
from agent_tui.core.commands import (
    Command,
    CommandRegistry,
    Invocation,
    Unknown,
    help_text,
    split_command,
)
from agent_tui.core.commands.grants import CommandRun, command_run
from agent_tui.core.permissions import Asker
from agent_tui.core.skills import LIST, LOAD, invocation_prompt, listing, skill_commands

BUILTINS_HERE = ("help", LIST)
"""The built-in actions these front ends run (the others need the TUI)."""


@dataclass(frozen=True)
class SlashReply:
    """Nothing for the model: show ``text``; ``mistake``: it is a usage error (an unknown
    command, a built-in that needs the TUI, a command that could not be expanded)."""

    text: str
    mistake: bool = False


@dataclass(frozen=True)
class SlashPrompt:
    """What the model gets, the notes to show first, and a custom command's grant and
    ``model`` for the turn it starts (``agent.run(command=)``)."""

    prompt: str
    notes: tuple[str, ...] = ()
    run: CommandRun | None = None


def workspace_commands(agent: Agent) -> CommandRegistry:
    """The session's commands: built-in, the project's and the user's, skills, MCP prompts
    (blocking: the command files are read)."""
    sources = [s for s in agent.tool_sources if hasattr(s, "prompts")]

    def prompts() -> list[object]:
        return [p for source in sources for p in source.prompts()]

    def skills() -> list[Command]:
        return skill_commands(agent.skills)

    return CommandRegistry.for_workspace(agent.cwd, prompts=prompts, skills=skills)  # type: ignore[arg-type]


def runs_here(command: Command) -> bool:
    """Whether a front end without the TUI runs ``command``."""
    return command.kind != "builtin" or command.action in BUILTINS_HERE


async def resolve_slash(
    agent: Agent,
    text: str,
    *,
    asker: Asker | None,
    needs_tui: str,
    in_help: Callable[[Command], bool] = lambda command: True,
) -> SlashReply | SlashPrompt:
    """``text`` as the model's prompt, or the reply to show instead. ``needs_tui`` is said of
    a TUI built-in (``{name}``: its name); ``/help`` lists the commands ``in_help`` keeps."""
    shaped = split_command(text)
    if shaped is not None and shaped[0].startswith("mcp__"):
        await _prompt_servers(agent, shaped[0])
    commands = await asyncio.to_thread(workspace_commands, agent)
    notes = tuple(commands.problems)
    parsed = commands.parse(text)
    if isinstance(parsed, Unknown):
        return SlashReply(parsed.message, mistake=True)
    if not isinstance(parsed, Invocation):
        return SlashPrompt(parsed.text, notes)
    command = parsed.command
    skill = agent.skills.find(command.name) if agent.skills and command.action == LOAD else None
    if skill is not None:
        prompt = await asyncio.to_thread(invocation_prompt, skill, parsed.args, agent.cwd)
        return SlashPrompt(prompt, notes)
    if command.kind == "builtin":
        if command.action == "help":
            shown = [c for c in commands.commands() if in_help(c)]
            return SlashReply(help_text(shown, commands.problems))
        if command.action == LIST:
            return SlashReply(listing(agent.skills))
        return SlashReply(needs_tui.format(name=command.name), mistake=True)
    from agent_tui.core.commands.command_shell import CommandShell  # only a command runs them
    from agent_tui.core.commands.expand import CommandError, expand

    run = None
    if command.custom is not None:
        aliases = agent.settings.model.aliases
        run = command_run(command.custom, root=agent.cwd, trust=agent.trust, aliases=aliases)
    sources = [s for s in agent.tool_sources if hasattr(s, "prompts")]
    try:
        expanded = await expand(
            parsed,
            prompts=sources[0] if sources else None,  # type: ignore[arg-type]
            shell=CommandShell(agent.executor, asker, run.rules if run is not None else ()),
        )
    except CommandError as exc:
        return SlashReply(str(exc), mistake=True)
    said = run.notes if run is not None else ()
    return SlashPrompt(expanded.prompt, (*notes, *said, *expanded.notes), run)


async def _prompt_servers(agent: Agent, command: str) -> None:
    """Before ``/mcp__<server>__<prompt>`` is resolved: a server's prompts are listed once it
    has connected, so start ``<server>`` if it is lazy and not started (its prompts are not
    cached), and wait for the servers still starting (lazy ones too)."""
    from agent_tui.core.mcp.client.naming import server_of

    for source in agent.tool_sources:
        if not hasattr(source, "prompts"):
            continue
        await source.ready()
        config = getattr(source, "config", None)
        start_lazy = getattr(source, "start_lazy", None)
        server = server_of(command, config.servers) if config is not None else None
        if server is not None and start_lazy is not None:
            await start_lazy(server)
        settle = getattr(source, "wait_ready", None)
        if settle is not None:
            await settle()
