"""The built-in tools: files (read, write, edit), search (list_dir, glob, grep), the shell
(``run_shell``, its background jobs: ``shell_output``, ``shell_kill``), the plan (update_plan,
and exit_plan_mode in plan mode) and the web (web_fetch).

Each tool is one module defining ``TOOL``; adding a built-in means adding its module here.
"""

from __future__ import annotations

from typing import Any

from agent_tui.core.tools.base import Tool
from agent_tui.core.tools.builtin import (
    edit_file,
    exit_plan_mode,
    glob_tool,
    grep_tool,
    list_dir,
    read_file,
    run_shell,
    shell_kill,
    shell_output,
    update_plan,
    web_fetch,
    write_file,
)
from agent_tui.core.tools.registry import ToolRegistry

_MODULES = (
    read_file,
    write_file,
    edit_file,
    run_shell,
    shell_output,
    shell_kill,
    list_dir,
    glob_tool,
    grep_tool,
    update_plan,
    exit_plan_mode,
    web_fetch,
)


def builtin_tools() -> list[Tool[Any]]:
    """Every built-in tool, sorted by name."""
    return sorted((module.TOOL for module in _MODULES), key=lambda tool: tool.name)


def default_registry() -> ToolRegistry:
    """A fresh registry holding the built-in tools (each call returns a new registry)."""
    return ToolRegistry(builtin_tools())


__all__ = ["builtin_tools", "default_registry"]
