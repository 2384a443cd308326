"""Slash commands, UI-free: the registry (built-ins, custom Markdown commands, MCP prompts),
parsing a prompt into an invocation, expanding one into the model's prompt (arguments, then a
command file's shell lines run as ``run_shell`` calls under the session's rules:
``shell_lines``, ``command_shell``), what a command's ``allowed-tools`` and ``model`` give
the turn it starts (``grants``), completion and ``/help``. The TUI
(``ui/shell/slash_actions.py``), the palette and headless mode all use it.

It may import the core's shared vocabulary (``events``, ``transcript``), ``state``,
``permissions``, ``claude`` (the rule translation) and ``executor`` (to run shell lines as the
session runs calls); it never imports ``agent`` (``command_shell`` is handed the session's
``ToolExecutor``; the agent imports ``grants.CommandRun``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.core import lazy

if TYPE_CHECKING:
    from agent_tui.core.commands.completer import SlashCompleter
    from agent_tui.core.commands.custom import CustomCommand
    from agent_tui.core.commands.help import help_text, markdown_table
    from agent_tui.core.commands.mcp_prompts import McpPrompt, PromptArgument
    from agent_tui.core.commands.registry import (
        CommandRegistry,
        Invocation,
        Parsed,
        Plain,
        Unknown,
        split_command,
    )
    from agent_tui.core.commands.spec import BUILTINS, Command
else:
    __getattr__ = lazy.exports(
        __name__,
        {
            "SlashCompleter": "completer",
            "CustomCommand": "custom",
            "help_text": "help",
            "markdown_table": "help",
            "McpPrompt": "mcp_prompts",
            "PromptArgument": "mcp_prompts",
            "CommandRegistry": "registry",
            "Invocation": "registry",
            "Parsed": "registry",
            "Plain": "registry",
            "Unknown": "registry",
            "split_command": "registry",
            "BUILTINS": "spec",
            "Command": "spec",
        },
    )

__all__ = [
    "BUILTINS",
    "Command",
    "CommandRegistry",
    "CustomCommand",
    "Invocation",
    "McpPrompt",
    "Parsed",
    "Plain",
    "PromptArgument",
    "SlashCompleter",
    "Unknown",
    "help_text",
    "markdown_table",
    "split_command",
]
