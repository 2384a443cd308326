"""Slash commands and piped input for headless runs (``agent-tui -p``).

``resolve`` turns the ``-p`` text into the prompt the model gets: a custom command or an MCP
prompt is expanded (a missing required argument of an MCP prompt is an error naming it; a
custom command's shell lines run under the session's rules and its ``allowed-tools``
(``core.commands.grants``: a project's only once trusted), where an ask is refused as any
headless ask is, and a refused line is a note in the prompt and on stderr; its grant and
``model`` go with the turn, ``Resolved.run``), a skill's
``/NAME request`` loads it into the prompt; ``/help`` and ``/skills`` print the lists; the
other built-ins need the TUI and say so; ``//x`` sends ``/x``. ``read_stdin`` reads piped
input (``cat log | agent-tui -p "why?"``, or ``-p -``) as bytes, decoded as UTF-8 with
replacement, at most ``MAX_STDIN`` bytes.
"""

from __future__ import annotations

import asyncio
import os
import stat
from dataclasses import dataclass
from typing import BinaryIO

from agent_tui.core.agent.agent import Agent
from agent_tui.core.commands import (
    Command,
    CommandRegistry,
    Invocation,
    Unknown,
    help_text,
    split_command,
)
from agent_tui.core.commands.command_shell import CommandShell
from agent_tui.core.commands.expand import CommandError, expand
from agent_tui.core.commands.grants import CommandRun, command_run
from agent_tui.core.skills import LIST, LOAD, invocation_prompt, listing, skill_commands

MAX_STDIN = 10 * 1024 * 1024
"""Piped input larger than this is refused (exit 2) rather than cut silently."""


@dataclass(frozen=True)
class Done:
    """Nothing to send: print ``text`` (stdout when ``code`` is 0, else stderr), exit ``code``."""

    text: str
    code: int


@dataclass(frozen=True)
class Resolved:
    prompt: str
    notes: tuple[str, ...] = ()
    run: CommandRun | None = None
    """A custom command's grant and model, for the turn it starts (``agent.run(command=)``)."""


class StdinTooLarge(ValueError):
    pass


def stdin_is_piped(stream: BinaryIO) -> bool:
    """Whether stdin is a pipe or a file (not a terminal, not ``/dev/null``, not closed)."""
    try:
        mode = os.fstat(stream.fileno()).st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISREG(mode)


def read_stdin(stream: BinaryIO, limit: int = MAX_STDIN) -> str:
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise StdinTooLarge(
            f"the input on stdin is over {limit // (1024 * 1024)} MB; pass a file path in "
            "the prompt instead (the agent reads it with read_file)"
        )
    return data.decode("utf-8", errors="replace")


def with_stdin(prompt: str, piped: str) -> str:
    """The prompt with the piped text after it (``-p -``: the piped text alone)."""
    if prompt == "-":
        return piped
    if not piped.strip():
        return prompt
    return f"{prompt}\n\n{piped}"


async def resolve(agent: Agent, text: str) -> Resolved | Done:
    shaped = split_command(text)
    sources = [s for s in agent.tool_sources if hasattr(s, "prompts")]
    if shaped is not None and shaped[0].startswith("mcp__"):
        for source in sources:  # the prompts are listed once the servers are connected
            await source.ready()

    def prompts() -> list[object]:
        return [p for source in sources for p in source.prompts()]

    def skills() -> list[Command]:
        return skill_commands(agent.skills)

    registry = CommandRegistry.for_workspace(agent.cwd, prompts=prompts, skills=skills)  # type: ignore[arg-type]
    notes = tuple(registry.problems)
    parsed = registry.parse(text)
    if isinstance(parsed, Unknown):
        return Done(parsed.message, 2)
    if not isinstance(parsed, Invocation):
        return Resolved(parsed.text, notes)
    command = parsed.command
    skill = agent.skills.find(command.name) if agent.skills and command.action == LOAD else None
    if skill is not None:
        prompt = await asyncio.to_thread(invocation_prompt, skill, parsed.args, agent.cwd)
        return Resolved(prompt, notes)
    if command.kind == "builtin":
        if command.action == "help":
            return Done(help_text(registry.commands(), registry.problems), 0)
        if command.action == LIST:
            return Done(listing(agent.skills), 0)
        return Done(
            f"/{command.name} needs the TUI (run agent-tui without -p); headless runs take "
            "custom commands, skills, MCP prompts, /skills and /help",
            2,
        )
    run = None
    if command.custom is not None:
        aliases = agent.settings.model.aliases
        run = command_run(command.custom, root=agent.cwd, trust=agent.trust, aliases=aliases)
    try:
        expanded = await expand(
            parsed,
            prompts=sources[0] if sources else None,  # type: ignore[arg-type]
            shell=CommandShell(agent.executor, None, run.rules if run is not None else ()),
        )
    except CommandError as exc:
        return Done(str(exc), 2)
    said = run.notes if run is not None else ()
    return Resolved(expanded.prompt, (*notes, *said, *expanded.notes), run)
