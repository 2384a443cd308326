"""``agent-tui mcp serve``: our read-only tools as an MCP server over stdio.

The tools are the read-only built-ins (read_file, list_dir, glob, grep) plus ``search_files``,
taken from the same registry entries the agent uses: same descriptions, same JSON Schemas,
same validation. Invalid arguments are a JSON-RPC ``-32602`` error whose data lists each
problem with its JSON path; an unknown tool is ``-32602`` too (as the spec says). Tools are
listed sorted by name.

The client on the other end is a model we know nothing about, so the server holds the line the
agent's permission pipeline holds, without anyone to ask:

- it shows one directory tree, not the machine: a path argument that resolves outside it, a
  glob pattern that is absolute or climbs with ``..`` (or starts in a symlink that leads out)
  is refused with an ``isError`` result saying why;
- the project's permission rules apply (the user, project and local settings files, as
  ``load_permission_config`` reads them): a call that a deny rule for that tool matches is
  refused, and so is one an ask rule matches — nobody can be asked over MCP;
- every call runs with ``ToolContext.reads`` = ``RootGuard(root, RuleReadGuard(rules))``, so
  the tools withhold each file outside the tree (a symlink pointing out) or covered by a
  ``read_file`` deny or ask rule, wherever a walk meets it.

A settings file that cannot be read or parsed does not stop the server: the rules that could
be read apply, and the problem is written to stderr (where MCP clients log a server's output).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any, TextIO

from agent_tui import __version__
from agent_tui.core.mcp import search_files
from agent_tui.core.permissions.config import load_permission_config
from agent_tui.core.permissions.pipeline import PermissionPipeline, RuleSet
from agent_tui.core.permissions.read_guard import RootGuard, RuleReadGuard, describe_rule
from agent_tui.core.tools.base import Tool, ToolContext
from agent_tui.core.tools.builtin import builtin_tools
from agent_tui.core.tools.builtin._walk import expand_braces, has_magic
from agent_tui.core.tools.errors import ToolErrorInfo
from agent_tui.core.tools.reads import ReadGuard
from agent_tui.core.tools.registry import PreparedCall, ToolRegistry, tool_schema

INVALID_PARAMS = -32602
SERVER_NAME = "agent-tui"
GLOB_TOOL = "glob"
"""The tool whose ``pattern`` can name directories of its own (``_split`` in glob_tool moves
its leading literal segments into the search directory)."""


def serve_registry() -> ToolRegistry:
    """The tools ``mcp serve`` exposes: every read-only built-in that reads files (not the
    plan, not the network), plus ``search_files``."""
    tools = [t for t in builtin_tools() if t.meta.read_only and t.meta.rule_kind == "path"]
    return ToolRegistry([*tools, search_files.TOOL])


def load_rules(root: Path) -> tuple[RuleSet, list[str]]:
    """The permission rules of ``root``'s settings files, and the problems met reading them
    (a broken file or rule is left out; the others apply)."""
    config = load_permission_config(root)
    return config.rules, list(config.problems)


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _resolve(raw: str, root: Path) -> Path:
    """A path argument as the tools resolve it (``ToolContext.resolve``, then ``realpath``)."""
    target = Path(raw).expanduser()
    return Path(os.path.realpath(target if target.is_absolute() else root / target))


def subject_path(tool: Tool[Any], arguments: dict[str, Any], root: Path) -> Path | None:
    """The resolved path a path tool's call works on (its ``rule_subject`` argument, ``.`` when
    absent), or None for a tool without one."""
    if tool.meta.rule_kind != "path" or not tool.meta.rule_subject:
        return None
    value = arguments.get(tool.meta.rule_subject)
    return _resolve(value if isinstance(value, str) and value else ".", root)


def glob_escape(pattern: str, search_dir: Path, root: Path) -> str | None:
    """Why a glob ``pattern`` searching ``search_dir`` could list files outside ``root``, or
    None. Refused: an absolute pattern, a ``..`` segment (in any ``{a,b}`` alternative too), and
    leading literal directories that resolve outside ``root`` (``link/*`` with ``link -> /``)."""
    alternatives = [pattern, *expand_braces(pattern)]
    if any(alt.startswith("/") for alt in alternatives):
        return (
            f"The glob pattern {pattern!r} is absolute; this server only searches inside the "
            f"directory it serves ({root}). Give a pattern relative to the search directory "
            '(e.g. "**/*.py") and the directory as path.'
        )
    if any(".." in alt.split("/") for alt in alternatives):
        return (
            f"The glob pattern {pattern!r} contains '..', which could reach outside the "
            f"directory this server serves ({root}). Patterns may not go up a directory: put "
            "the directory to search in path (inside the served directory)."
        )
    segments = [s for s in pattern.split("/") if s not in ("", ".")]
    base = search_dir
    while len(segments) > 1 and not has_magic(segments[0]):
        base, segments = base / segments[0], segments[1:]
    start = Path(os.path.realpath(base))
    if not _inside(start, root):
        return (
            f"The glob pattern {pattern!r} starts in {start}, which is outside the directory "
            f"this server serves ({root}); only paths inside it can be used."
        )
    return None


def _shown(path: Path, root: Path) -> str:
    return "." if path == root else path.relative_to(root).as_posix()


class ToolServer:
    """The request handlers, separate from the transport (tests call them directly too).

    ``rules`` default to those of ``root``'s settings files; ``problems`` lists what was wrong
    reading them (``serve_stdio`` writes it to stderr).
    """

    def __init__(
        self, root: Path, registry: ToolRegistry | None = None, rules: RuleSet | None = None
    ) -> None:
        self.root = Path(os.path.realpath(root))
        self.registry = registry or serve_registry()
        self.problems: list[str] = []
        if rules is None:
            rules, self.problems = load_rules(self.root)
        self.rules = rules
        self.pipeline = PermissionPipeline(self.root, rules)
        """Its rule matching (deny and ask rules refuse calls here: nobody can be asked)."""
        self.reads: ReadGuard = RootGuard(
            self.root, RuleReadGuard(rules, self.root, nobody_to_ask=True)
        )

    def report_problems(self, stream: TextIO) -> None:
        """One line per settings problem, saying that the server keeps serving."""
        for problem in self.problems:
            print(
                f"agent-tui mcp serve: settings: {problem} "
                "(serving with the permission rules that could be read)",
                file=stream,
                flush=True,
            )

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
        judged = subject_path(prepared.tool, prepared.input.model_dump(mode="python"), self.root)
        refusal = self.refusal(prepared, judged)
        if refusal is not None:
            return result(refusal, True)
        ctx = ToolContext(
            cwd=self.root, call_id=f"mcp-serve-{name}", judged_path=judged, reads=self.reads
        )
        outcome = await self.registry.run(prepared, ctx)
        if outcome.error is not None:
            return result(outcome.error.to_model_text(), True)
        assert outcome.output is not None
        if outcome.output.raw is not None:  # nothing is spilled here: the client gets the text
            outcome.output.raw.close()
        return result(outcome.output.content, outcome.output.is_error)

    def refusal(self, prepared: PreparedCall, subject: Path | None) -> str | None:
        """Why this server will not run ``prepared`` (``subject``: its resolved path), or None.

        In order: a path outside the served directory, a glob pattern that could leave it, a
        deny rule, an ask rule (nobody can answer it over MCP), a subject the read guard
        withholds. The tools then withhold, file by file, what their walks meet.
        """
        tool = prepared.tool
        if subject is None:
            return None
        if not _inside(subject, self.root):
            return (
                f"{subject} is outside the directory this server serves ({self.root}); "
                "only paths inside it can be used."
            )
        if tool.name == GLOB_TOOL:
            pattern = getattr(prepared.input, "pattern", None)
            if isinstance(pattern, str):
                escape = glob_escape(pattern, subject, self.root)
                if escape is not None:
                    return escape
        shown = _shown(subject, self.root)
        rule = self.pipeline.first_matching("deny", tool, subject)
        if rule is not None:
            return (
                f"{tool.name} on {shown} is denied by {describe_rule(rule)}; this server never "
                "runs a call a deny rule forbids. Work without it, or ask the user to change "
                "the rule."
            )
        rule = self.pipeline.first_matching("ask", tool, subject)
        if rule is not None:
            return (
                f"{tool.name} on {shown} needs the user's approval under {describe_rule(rule)}, "
                "and nobody can be asked over MCP, so it was not run. The rule would have to "
                "allow it in that settings file."
            )
        withheld = self.reads.withheld(subject)
        if withheld is not None:
            return (
                f"{shown} is withheld ({withheld}), so {tool.name} was not run on it. Do not "
                "try to reach it another way; work without it or ask the user."
            )
        return None

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

    tools = ToolServer(root)
    tools.report_problems(sys.stderr)
    server = tools.build()
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def run(root: Path) -> int:
    """Serve until the client closes stdin."""
    try:
        asyncio.run(serve_stdio(root))
    except KeyboardInterrupt:
        return 130
    return 0
