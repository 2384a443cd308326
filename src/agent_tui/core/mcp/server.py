"""``agent-tui mcp serve``: our read-only tools as an MCP server over stdio.

The tools are the read-only built-ins (read_file, list_dir, glob, grep) plus ``search_files``,
taken from the same registry entries the agent uses: same descriptions, same JSON Schemas,
same validation. Invalid arguments are a JSON-RPC ``-32602`` error whose data lists each
problem with its JSON path; an unknown tool is ``-32602`` too (as the spec says). A path
outside the served directory is refused (an ``isError`` result): the server shows one
directory tree, not the machine. Tools are listed sorted by name.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

from agent_tui import __version__
from agent_tui.core.mcp import search_files
from agent_tui.core.tools.base import Tool, ToolContext
from agent_tui.core.tools.builtin import builtin_tools
from agent_tui.core.tools.errors import ToolErrorInfo
from agent_tui.core.tools.registry import PreparedCall, ToolRegistry, tool_schema

INVALID_PARAMS = -32602
SERVER_NAME = "agent-tui"


def serve_registry() -> ToolRegistry:
    """The tools ``mcp serve`` exposes: every read-only built-in, plus ``search_files``."""
    tools = [t for t in builtin_tools() if t.meta.read_only]
    return ToolRegistry([*tools, search_files.TOOL])


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def outside_root(tool: Tool[Any], arguments: dict[str, Any], root: Path) -> str | None:
    """The resolved path argument of ``tool`` when it points outside ``root``, else None."""
    if tool.meta.rule_kind != "path" or not tool.meta.rule_subject:
        return None
    value = arguments.get(tool.meta.rule_subject)
    raw = value if isinstance(value, str) and value else "."
    target = Path(raw).expanduser()
    resolved = Path(os.path.realpath(target if target.is_absolute() else root / target))
    return None if _inside(resolved, root) else str(resolved)


class ToolServer:
    """The request handlers, separate from the transport (tests call them directly too)."""

    def __init__(self, root: Path, registry: ToolRegistry | None = None) -> None:
        self.root = Path(os.path.realpath(root))
        self.registry = registry or serve_registry()

    def list_tools(self) -> list[Any]:
        from mcp.types import Tool as McpTool
        from mcp.types import ToolAnnotations

        notes = ToolAnnotations(
            read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
        )
        return [
            McpTool(
                name=tool.name,
                description=tool.description,
                input_schema=tool_schema(tool),
                annotations=notes,
            )
            for tool in self.registry.tools()
        ]

    async def call_tool(self, name: str, arguments: dict[str, Any] | None) -> Any:
        from mcp.shared.exceptions import MCPError
        from mcp.types import CallToolResult, TextContent

        def result(text: str, error: bool) -> CallToolResult:
            return CallToolResult(content=[TextContent(type="text", text=text)], is_error=error)

        prepared = self.registry.prepare(name, json.dumps(arguments or {}))
        if isinstance(prepared, ToolErrorInfo):
            data: dict[str, Any] = {"code": prepared.code}
            if prepared.details:
                data["problems"] = prepared.details
            if prepared.code == "unknown_tool":
                data["tools"] = self.registry.names()
            raise MCPError(INVALID_PARAMS, f"{prepared.message} {prepared.next_step}".strip(), data)
        assert isinstance(prepared, PreparedCall)
        outside = outside_root(prepared.tool, arguments or {}, self.root)
        if outside is not None:
            return result(
                f"{outside} is outside the directory this server serves ({self.root}); "
                "only paths inside it can be used.",
                True,
            )
        ctx = ToolContext(cwd=self.root, call_id=f"mcp-serve-{name}")
        outcome = await self.registry.run(prepared, ctx)
        if outcome.error is not None:
            return result(outcome.error.to_model_text(), True)
        assert outcome.output is not None
        return result(outcome.output.content, outcome.output.is_error)

    def build(self) -> Any:
        """The SDK ``Server`` with these handlers."""
        from mcp.server import Server
        from mcp.types import CallToolRequestParams, ListToolsResult, PaginatedRequestParams

        async def on_list_tools(_ctx: Any, _params: PaginatedRequestParams | None) -> Any:
            return ListToolsResult(tools=self.list_tools())

        async def on_call_tool(_ctx: Any, params: CallToolRequestParams) -> Any:
            return await self.call_tool(params.name, params.arguments)

        return Server(
            SERVER_NAME,
            version=__version__,
            instructions=f"Read-only file tools over {self.root}: read files, list "
            "directories, find files by name or glob, search contents with grep.",
            on_list_tools=on_list_tools,
            on_call_tool=on_call_tool,
        )


async def serve_stdio(root: Path) -> None:
    from mcp.server.stdio import stdio_server

    server = ToolServer(root).build()
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def run(root: Path) -> int:
    """Serve until the client closes stdin."""
    try:
        asyncio.run(serve_stdio(root))
    except KeyboardInterrupt:
        return 130
    return 0
