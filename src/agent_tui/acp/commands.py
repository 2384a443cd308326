"""Slash commands for an ACP client: the list (``available_commands_update``) and a prompt that
starts with ``/`` resolved as headless mode resolves it, from the same core pieces.

What an editor can run: custom Markdown commands (their shell lines run as ``run_shell``
calls under the session's rules, and their asks go to the client), skills (``/NAME request``
loads one), MCP prompts, ``/help`` and ``/skills``. The TUI's own built-ins (``/clear``,
``/rewind``, …) act on the TUI's screens and are not offered: a prompt naming one is answered
with a message saying so, and nothing is sent to the model. ``//x`` sends ``/x``.
"""

from __future__ import annotations

from dataclasses import dataclass

from acp.schema import AvailableCommand, AvailableCommandInput, UnstructuredCommandInput

from agent_tui.core.agent.agent import Agent
from agent_tui.core.agent.slash import SlashReply, resolve_slash, runs_here, workspace_commands
from agent_tui.core.commands.grants import CommandRun
from agent_tui.core.permissions import Asker

NEEDS_TUI = (
    "/{name} needs agent-tui's own TUI; from an editor you can run custom commands, skills, "
    "MCP prompts, /skills and /help"
)


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


def available(agent: Agent) -> list[AvailableCommand]:
    """The commands to list for the client (blocking: the command files are read)."""
    out = []
    for command in workspace_commands(agent).commands():
        if not runs_here(command):
            continue
        hint = (
            AvailableCommandInput(root=UnstructuredCommandInput(hint=command.hint))
            if command.hint
            else None
        )
        out.append(AvailableCommand(name=command.name, description=command.description, input=hint))
    return out


async def resolve(agent: Agent, text: str, asker: Asker) -> Answer | Expanded:
    """``text`` as the model's prompt (``core.agent.slash``, as headless mode resolves it),
    or the answer to show instead."""
    out = await resolve_slash(agent, text, asker=asker, needs_tui=NEEDS_TUI, in_help=runs_here)
    if isinstance(out, SlashReply):
        return Answer(out.text)
    return Expanded(out.prompt, out.notes, out.run)
