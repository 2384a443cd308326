"""An invocation of a custom command or an MCP prompt, expanded into the model's prompt.

A custom command: its arguments put in (``arguments``), then its shell lines run and their
output inlined (``shell_lines``, through ``shell``: ``command_shell.CommandShell``). Its
``@path`` references stay in the prompt, where the turn attaches them as any typed
``@`` mention (``core.mentions``: the same read rules, the same limits)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from agent_tui.core.commands.mcp_prompts import PromptArgument, missing_message, render_messages
from agent_tui.core.commands.registry import Invocation
from agent_tui.core.commands.shell_lines import ShellRun, run_shell_lines

MAX_PROMPT_CHARS = 1_000_000
"""An MCP prompt answering more text than this is refused (it would fill any context)."""


class PromptSource(Protocol):
    """Where MCP prompts are fetched (the MCP manager)."""

    async def get_prompt(self, server: str, name: str, arguments: dict[str, str]) -> Any: ...


class CommandError(Exception):
    """The command cannot be expanded; the message says why, for the user."""

    def __init__(self, message: str, missing: list[PromptArgument] | None = None) -> None:
        super().__init__(message)
        self.missing = missing or []


@dataclass(frozen=True)
class Expanded:
    prompt: str
    """What is sent to the model as the user's message."""
    notes: list[str] = field(default_factory=list)
    """What the user should know (the shell lines that did not run, and why)."""


def missing_arguments(invocation: Invocation) -> list[PromptArgument]:
    """The required arguments of an MCP prompt the invocation's words leave unfilled."""
    prompt = invocation.command.mcp
    if prompt is None:
        return []
    return prompt.bind(invocation.args)[1]


async def expand(
    invocation: Invocation,
    *,
    prompts: PromptSource | None = None,
    answers: Mapping[str, str] | None = None,
    shell: ShellRun | None = None,
) -> Expanded:
    """The prompt of a custom command or an MCP prompt. ``answers`` fill the arguments the
    words left missing (the TUI asks for them); still missing ones raise ``CommandError``.
    ``shell`` runs a custom command's shell lines (None: each becomes a note; a
    ``CommandShell`` made with the command's ``grants.CommandRun`` judges them with its
    ``allowed-tools``, as Claude Code does)."""
    command = invocation.command
    if command.custom is not None:
        text, ran = await run_shell_lines(command.custom.render(invocation.args), shell)
        return Expanded(text, ran)
    prompt = command.mcp
    if prompt is None:
        raise CommandError(f"/{command.name} is not a prompt command")
    values, _ = prompt.bind(invocation.args)
    values.update({k: v for k, v in (answers or {}).items() if v})
    missing = [a for a in prompt.arguments if a.required and not values.get(a.name)]
    if missing:
        raise CommandError(missing_message(prompt, missing), missing)
    if prompts is None:
        raise CommandError(f"/{command.name}: MCP prompts are not available here")
    try:
        result = await prompts.get_prompt(prompt.server, prompt.name, values)
    except Exception as exc:
        raise CommandError(f"/{command.name}: getting the prompt failed: {exc}") from exc
    text = render_messages(getattr(result, "messages", []))
    if len(text) > MAX_PROMPT_CHARS:
        raise CommandError(
            f"/{command.name}: the prompt is {len(text):,} characters "
            f"(at most {MAX_PROMPT_CHARS:,})"
        )
    if not text.strip():
        raise CommandError(f"/{command.name}: the server answered an empty prompt")
    return Expanded(text)
