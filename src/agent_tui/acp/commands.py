"""Slash commands for an ACP client: the list (``available_commands_update``) and a prompt that
starts with ``/`` resolved as headless mode resolves it, from the same core pieces.

What an editor can run: custom Markdown commands (their shell lines run as ``run_shell``
calls under the session's rules, and their asks go to the client), skills (``/NAME request``
loads one), MCP prompts, ``/help`` and ``/skills``. The TUI's own built-ins (``/clear``,
``/rewind``, …) act on the TUI's screens and are not offered: a prompt naming one is answered
with a message saying so, and nothing is sent to the model. ``//x`` sends ``/x``.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from acp.schema import AvailableCommand, AvailableCommandInput, UnstructuredCommandInput

from agent_tui.core.agent.agent import Agent
from agent_tui.core.commands import Command, CommandRegistry, Invocation, Unknown, help_text
from agent_tui.core.commands.command_shell import CommandShell
from agent_tui.core.commands.expand import CommandError, expand
from agent_tui.core.commands.grants import CommandRun, command_run
from agent_tui.core.permissions import Asker
from agent_tui.core.skills import LIST, LOAD, invocation_prompt, listing, skill_commands

BUILTINS_HERE = ("help", LIST)
"""The built-in actions an ACP session runs (the others need the TUI)."""


@dataclass(frozen=True)
class Answer:
    """Nothing for the model: show ``text`` to the user."""

    text: str


@dataclass(frozen=True)
class Expanded:
    """What the model gets for the prompt, the notes to show first, the command's grant."""

    prompt: str
    notes: tuple[str, ...] = ()
    run: CommandRun | None = None


def registry(agent: Agent) -> CommandRegistry:
    """The session's commands: built-in, the project's and the user's, skills, MCP prompts."""
    sources = [s for s in agent.tool_sources if hasattr(s, "prompts")]

    def prompts() -> list[object]:
        return [p for source in sources for p in source.prompts()]

    def skills() -> list[Command]:
        return skill_commands(agent.skills)

    return CommandRegistry.for_workspace(agent.cwd, prompts=prompts, skills=skills)  # type: ignore[arg-type]


def offered(command: Command) -> bool:
    return command.kind != "builtin" or command.action in BUILTINS_HERE


def available(agent: Agent) -> list[AvailableCommand]:
    """The commands to list for the client (blocking: the command files are read)."""
    out = []
    for command in registry(agent).commands():
        if not offered(command):
            continue
        hint = (
            AvailableCommandInput(root=UnstructuredCommandInput(hint=command.hint))
            if command.hint
            else None
        )
        out.append(AvailableCommand(name=command.name, description=command.description, input=hint))
    return out


async def resolve(agent: Agent, text: str, asker: Asker) -> Answer | Expanded:
    """``text`` as the model's prompt, or the answer to show instead."""
    sources = [s for s in agent.tool_sources if hasattr(s, "prompts")]
    if text.lstrip().startswith("/mcp__"):
        for source in sources:  # the prompts are listed once the servers are connected
            await source.ready()
    commands = await asyncio.to_thread(registry, agent)
    notes = tuple(commands.problems)
    parsed = commands.parse(text)
    if isinstance(parsed, Unknown):
        return Answer(parsed.message)
    if not isinstance(parsed, Invocation):
        return Expanded(parsed.text, notes)
    command = parsed.command
    skill = agent.skills.find(command.name) if agent.skills and command.action == LOAD else None
    if skill is not None:
        prompt = await asyncio.to_thread(invocation_prompt, skill, parsed.args, agent.cwd)
        return Expanded(prompt, notes)
    if command.kind == "builtin":
        if command.action == "help":
            shown = [c for c in commands.commands() if offered(c)]
            return Answer(help_text(shown, commands.problems))
        if command.action == LIST:
            return Answer(listing(agent.skills))
        return Answer(
            f"/{command.name} needs agent-tui's own TUI; from an editor you can run custom "
            "commands, skills, MCP prompts, /skills and /help"
        )
    run = None
    if command.custom is not None:
        aliases = agent.settings.model.aliases
        run = command_run(command.custom, root=agent.cwd, trust=agent.trust, aliases=aliases)
    try:
        expanded = await expand(
            parsed,
            prompts=sources[0] if sources else None,  # type: ignore[arg-type]
            shell=CommandShell(agent.executor, asker, run.rules if run is not None else ()),
        )
    except CommandError as exc:
        return Answer(str(exc))
    said = run.notes if run is not None else ()
    return Expanded(expanded.prompt, (*notes, *said, *expanded.notes), run)
