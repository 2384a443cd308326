"""What a slash command is, and the built-in ones: each declared once, here.

A ``Command`` is the registry's entry: its name (typed after ``/``), a one-line description,
the arguments it takes (``hint``), whether it works headless, its aliases and where it comes
from. Built-ins name an ``action`` the front end runs; custom commands (``custom``) and MCP
prompts (``mcp``) become a prompt for the model. The prompt's completion, the command palette
and ``/help`` all list these entries.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from agent_tui.core.commands.custom import CustomCommand
    from agent_tui.core.commands.mcp_prompts import McpPrompt

Kind = Literal["builtin", "custom", "mcp"]
BUILTIN = "built-in"


@dataclass(frozen=True)
class Command:
    name: str
    """Typed after the slash: ``model``, ``git:commit``, ``mcp__git__review``."""
    description: str
    hint: str = ""
    """The arguments, as a user reads them: ``[spec]``, ``<id>``."""
    headless: bool = False
    """It does something useful in ``agent-tui -p`` (custom commands and MCP prompts do)."""
    aliases: tuple[str, ...] = ()
    source: str = BUILTIN
    """``built-in``, ``project``, ``user``, ``claude``, ``~/.claude`` or ``mcp: <server>``."""
    action: str = ""
    """Built-ins: what the front end does (``new_session``, ``switch_model``…)."""
    while_busy: bool = False
    """It may run while a turn runs (``/help``, ``/copy``…); the others wait for the end."""
    palette: str = ""
    """Its title in the command palette (empty: not listed there)."""
    custom: CustomCommand | None = field(default=None, compare=False)
    mcp: McpPrompt | None = field(default=None, compare=False)

    @property
    def kind(self) -> Kind:
        if self.custom is not None:
            return "custom"
        if self.mcp is not None:
            return "mcp"
        return "builtin"

    @property
    def usage(self) -> str:
        return f"/{self.name} {self.hint}".rstrip()


BUILTINS: tuple[Command, ...] = (
    Command(
        "help",
        "List every command: built-in, custom and MCP prompts",
        headless=True,
        while_busy=True,
        action="help",
        palette="Help: list the slash commands",
    ),
    Command(
        "clear",
        "Start a new conversation: the model forgets this one (ctrl+l)",
        aliases=("new",),
        action="new_session",
        palette="New conversation",
    ),
    Command(
        "clear-screen",
        "Clear the chat and the lane; the model keeps the context",
        action="clear_screen",
        palette="Clear the screen",
    ),
    Command(
        "model",
        "Switch the model for the next turns (no spec: pick one)",
        hint="[spec]",
        action="model",
        palette="Switch model",
    ),
    Command(
        "mode",
        "Permission mode: default, accept-edits, plan or bypass (no name: pick one)",
        hint="[name]",
        action="mode",
        palette="Permission mode",
    ),
    Command(
        "resume",
        "Continue a saved session of this directory (no id: pick one)",
        hint="[id]",
        action="resume",
        palette="Resume a session",
    ),
    Command(
        "sessions",
        "List the saved sessions of this directory",
        action="sessions",
    ),
    Command(
        "rewind",
        "Go back to before a turn: its code, the conversation or both",
        action="rewind",
        palette="Rewind",
    ),
    Command(
        "fork",
        "Continue in a copy of this session; the original stays as it was",
        action="fork",
        palette="Fork the session",
    ),
    Command(
        "compact",
        "Fold the conversation so far into a summary the model continues from",
        hint="[what to keep]",
        action="compact",
        palette="Compact the conversation",
    ),
    Command(
        "context",
        "How full the context window is, part by part",
        while_busy=True,
        action="context",
        palette="Context window: what fills it",
    ),
    Command(
        "skills",
        "List the skills (name, where from, description); /NAME request invokes one",
        headless=True,
        while_busy=True,
        action="skills",
    ),
    Command(
        "memory",
        "The memory files (AGENTS.md) loaded; /memory N opens one in $EDITOR",
        hint="[N]",
        action="memory",
        palette="Memory files",
    ),
    Command(
        "init",
        "Write a starter AGENTS.md for this project (--force replaces one)",
        hint="[--force]",
        action="init",
        palette="Write a starter AGENTS.md",
    ),
    Command(
        "spills",
        "Browse the full outputs saved to disk (ctrl+o)",
        while_busy=True,
        action="open_spill",
        palette="Open the spill browser",
    ),
    Command(
        "shells",
        "Background jobs: state, output, kill",
        while_busy=True,
        action="shells",
        palette="Background jobs",
    ),
    Command(
        "mcp",
        "MCP servers: status, tools, resources, prompts, server logs (ctrl+g)",
        while_busy=True,
        action="mcp_panel",
        palette="MCP panel",
    ),
    Command(
        "lane",
        "Show or hide the tool-call lane (ctrl+t)",
        while_busy=True,
        action="toggle_lane",
        palette="Toggle the tool lane",
    ),
    Command(
        "theme",
        "Switch the colour theme (no name: pick one)",
        hint="[name]",
        while_busy=True,
        action="theme",
    ),
    Command(
        "copy",
        "Copy the last answer to the clipboard",
        while_busy=True,
        action="copy",
        palette="Copy the last answer",
    ),
    Command(
        "export",
        "Write the conversation to a file: Markdown, or JSON when the file ends in .json",
        hint="[file] [--json]",
        while_busy=True,
        action="export",
        palette="Export the conversation",
    ),
    Command(
        "quit",
        "Quit agent-tui (ctrl+q)",
        aliases=("exit",),
        while_busy=True,
        action="quit",
    ),
)
"""The built-in commands, in the order ``/help`` lists them."""
