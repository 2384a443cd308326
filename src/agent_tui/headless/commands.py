"""Slash commands and piped input for headless runs (``agent-tui -p``).

``resolve`` turns the ``-p`` text into the prompt the model gets (``core.agent.slash``, as
ACP does: custom commands, MCP prompts, skills; a command's shell line that would ask is
refused, as any headless ask is, and is a note in the prompt and on stderr); ``/help`` and
``/skills`` print the lists; the other built-ins need the TUI and say so. ``read_stdin`` reads piped
input (``cat log | agent-tui -p "why?"``, or ``-p -``) as bytes, decoded as UTF-8 with
replacement, at most ``MAX_STDIN`` bytes.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from typing import BinaryIO

from agent_tui.core.agent.agent import Agent
from agent_tui.core.agent.slash import SlashReply, resolve_slash
from agent_tui.core.commands.grants import CommandRun

NEEDS_TUI = (
    "/{name} needs the TUI (run agent-tui without -p); headless runs take custom commands, "
    "skills, MCP prompts, /skills and /help"
)
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
    """``text`` as the model's prompt (``core.agent.slash``), or what to print and the exit
    code: 0 for ``/help`` and ``/skills``, 2 for a mistake."""
    out = await resolve_slash(agent, text, asker=None, needs_tui=NEEDS_TUI)
    if isinstance(out, SlashReply):
        return Done(out.text, 2 if out.mistake else 0)
    return Resolved(out.prompt, out.notes, out.run)
