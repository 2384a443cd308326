"""``agent-tui mcp serve``: our read-only tools as an MCP server (stdio here; streamable HTTP
in ``http``).

The tools are the read-only built-ins (read_file, list_dir, glob, grep) plus ``search_files``,
taken from the same registry entries the agent uses: same descriptions, same JSON Schemas,
same validation. Invalid arguments (a schema violation, an unknown argument, a wrong type, not
JSON) are a tool result with ``isError`` whose text lists each problem with its JSON path
(SEP-1303: the calling model sees it and can fix the call); an unknown tool is a JSON-RPC
``-32602`` error (as the spec says), its data listing the tools. Tools are listed sorted by
name.

A result longer than the output budget's per-result cap is spilled: the client gets an
excerpt, a pointer and a ``resource_link``, and reads the whole as this server's resource
``spill://<name>``, page by page (``spills``; read_file limits itself and is never spilled).

Logging: the server declares the ``logging`` capability and answers ``logging/setLevel`` (per
connection; ``info`` until the client sets one). Each call is logged as
``notifications/message`` from logger ``agent-tui.serve``: its arguments at ``debug``, its
outcome at ``info``, a refused call or invalid arguments at ``warning``. On 2026-07-28
connections, where ``logging/setLevel`` is gone, the level a request opts in to in its
``_meta`` decides instead (as the spec says).

The client on the other end is a model we know nothing about, so the server holds the line the
agent's permission pipeline holds, without anyone to ask:

- it shows one directory tree, not the machine: a path argument that resolves outside it, a
  glob pattern that is absolute or climbs with ``..`` (or starts in a symlink that leads out)
  is refused with an ``isError`` result saying why;
- the project's permission rules apply (the user, project and local settings files, ours
  and Claude Code's, as ``core.claude.permissions.permission_config`` reads them): a call
  that a deny rule for that tool matches is refused, and so is one an ask rule matches —
  nobody can be asked over MCP;
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
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Final, TextIO

from agent_tui import __version__
from agent_tui.core.budget.config import BudgetSettings
from agent_tui.core.claude.permissions import permission_config
from agent_tui.core.mcp.log_levels import LEVELS
from agent_tui.core.mcp.server import search_files
from agent_tui.core.mcp.server.spills import ServeSpills, call_summary
from agent_tui.core.permissions.pipeline import PermissionPipeline, RuleSet
from agent_tui.core.permissions.read_guard import RootGuard, RuleReadGuard, describe_rule
from agent_tui.core.tools.base import Tool, ToolContext
from agent_tui.core.tools.builtin import builtin_tools
from agent_tui.core.tools.errors import ToolErrorInfo
from agent_tui.core.tools.files.walk import expand_braces, has_magic
from agent_tui.core.tools.reads import ReadGuard
from agent_tui.core.tools.registry import PreparedCall, ToolRegistry, tool_schema

INVALID_PARAMS = -32602
SERVER_NAME = "agent-tui"
GLOB_TOOL = "glob"
"""The tool whose ``pattern`` can name directories of its own (``_split`` in glob_tool moves
its leading literal segments into the search directory)."""

LOG_LEVELS: Final = LEVELS
"""The syslog levels of MCP logging, least severe first (``log_levels.LEVELS``)."""
DEFAULT_LOG_LEVEL: Final = "info"
"""What a connection gets before its client sends ``logging/setLevel``."""
LOGGER: Final = "agent-tui.serve"
MAX_LOGGED_ARGUMENTS: Final = 300
"""Characters of a call's arguments in its ``debug`` log line."""
MAX_LEVELS: Final = 1024
"""Connections whose level is remembered (the oldest is forgotten past this)."""

LogSink = Callable[[str, str], Awaitable[None]]
"""``(level, message)``: sends one log message to the client, if its level lets it through."""


async def _no_log(_level: str, _message: str) -> None:
    return None


def serve_registry() -> ToolRegistry:
    """The tools ``mcp serve`` exposes: every read-only built-in that reads files (not the
    plan, not the network), plus ``search_files``."""
    tools = [t for t in builtin_tools() if t.meta.read_only and t.meta.rule_kind == "path"]
    return ToolRegistry([*tools, search_files.TOOL])


def load_rules(root: Path) -> tuple[RuleSet, list[str]]:
    """The permission rules of ``root``'s settings files, and the problems met reading them
    (a broken file or rule is left out; the others apply)."""
    config = permission_config(root)
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
        self,
        root: Path,
        registry: ToolRegistry | None = None,
        rules: RuleSet | None = None,
        budget: BudgetSettings | None = None,
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
        self.log_levels: dict[str | None, str] = {}
        """The ``logging/setLevel`` of each connection (``connection_key``)."""
        self.spills = ServeSpills(budget)
        """The output budget (``budget``: the settings' ``budget`` section, else its
        defaults): results too long to send, saved and served as resources."""

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

    async def call_tool(
        self, name: str, arguments: dict[str, Any] | None, log: LogSink = _no_log
    ) -> Any:
        """Run one ``tools/call``: an unknown tool raises ``MCPError`` (-32602); anything else
        is a ``CallToolResult``, invalid arguments and refusals included (``isError``)."""
        from mcp.shared.exceptions import MCPError
        from mcp.types import CallToolResult, TextContent

        def result(text: str, error: bool) -> CallToolResult:
            return CallToolResult(content=[TextContent(type="text", text=text)], is_error=error)

        raw = json.dumps(arguments or {})  # ASCII: a lone surrogate is escaped, not sent raw
        shown = raw if len(raw) <= MAX_LOGGED_ARGUMENTS else raw[:MAX_LOGGED_ARGUMENTS] + "..."
        await log("debug", f"{name} called with {shown}")
        prepared = self.registry.prepare(name, raw)
        if isinstance(prepared, ToolErrorInfo):
            if prepared.code == "unknown_tool":
                await log("warning", f"{name}: no such tool")
                data: dict[str, Any] = {"code": prepared.code, "tools": self.registry.names()}
                if prepared.details:
                    data["problems"] = prepared.details
                message = f"{prepared.message} {prepared.next_step}".strip()
                raise MCPError(INVALID_PARAMS, message, data)
            # SEP-1303: an input validation error is a tool execution error, so the model that
            # made the call reads what was wrong and can send it again.
            await log("warning", f"{name}: invalid arguments: {'; '.join(prepared.details)}")
            return result(prepared.to_model_text(), True)
        assert isinstance(prepared, PreparedCall)
        judged = subject_path(prepared.tool, prepared.input.model_dump(mode="python"), self.root)
        refusal = self.refusal(prepared, judged)
        if refusal is not None:
            await log("warning", f"{name} refused: {refusal}")
            return result(refusal, True)
        ctx = ToolContext(
            cwd=self.root, call_id=f"mcp-serve-{name}", judged_path=judged, reads=self.reads
        )
        outcome = await self.registry.run(prepared, ctx)
        if outcome.error is not None:
            await log("info", f"{name} failed: {outcome.error.code}: {outcome.error.message}")
            return result(outcome.error.to_model_text(), True)
        output = outcome.output
        assert output is not None
        try:
            size = len(output.content)
            if output.never_spill or not self.spills.over_budget(output.content):
                await log("info", f"{name} answered {size} characters")
                return result(output.content, output.is_error)
            blocks = await self.spills.spill(
                name,
                output.content,
                is_error=output.is_error,
                raw=output.raw,
                summary=call_summary(arguments),
            )
        finally:
            if output.raw is not None:
                output.raw.close()
        await log("info", f"{name} answered {size} characters: spilled, an excerpt sent")
        return CallToolResult(content=blocks, is_error=output.is_error)

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

    def set_level(self, connection: str | None, level: str) -> None:
        """``logging/setLevel`` from the client of ``connection`` (an HTTP session id; None
        over stdio)."""
        self.log_levels.pop(connection, None)
        self.log_levels[connection] = level
        while len(self.log_levels) > MAX_LEVELS:
            del self.log_levels[next(iter(self.log_levels))]

    def log_sink(self, ctx: Any) -> LogSink:
        """Log messages for the request of ``ctx`` (an SDK ``ServerRequestContext``): on the
        request's own stream, at the levels its connection let through."""
        import anyio
        from mcp.server.connection import allowed_log_levels
        from mcp.types import LoggingMessageNotification, LoggingMessageNotificationParams
        from mcp.types.version import MODERN_PROTOCOL_VERSIONS

        allowed = allowed_log_levels(ctx.protocol_version, ctx.meta)  # 2026: the request's
        if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:  # before: logging/setLevel
            floor = LOG_LEVELS.index(self.log_levels.get(connection_key(ctx), DEFAULT_LOG_LEVEL))
            allowed = allowed & frozenset(LOG_LEVELS[floor:])

        async def sink(level: str, message: str) -> None:
            if level not in allowed:
                return
            params = LoggingMessageNotificationParams(level=level, data=message, logger=LOGGER)
            try:
                await ctx.session.send_notification(
                    LoggingMessageNotification(params=params), related_request_id=ctx.request_id
                )
            except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                pass  # the client went away: the call's result cannot reach it either

        return sink

    def build(self) -> Any:
        """The SDK ``Server`` with these handlers."""
        from mcp.server import Server
        from mcp.types import (
            CallToolRequestParams,
            EmptyResult,
            ListResourcesResult,
            ListResourceTemplatesResult,
            ListToolsResult,
            PaginatedRequestParams,
            ReadResourceRequestParams,
            SetLevelRequestParams,
        )

        async def on_list_tools(_ctx: Any, _params: PaginatedRequestParams | None) -> Any:
            return ListToolsResult(tools=self.list_tools())

        async def on_call_tool(ctx: Any, params: CallToolRequestParams) -> Any:
            return await self.call_tool(params.name, params.arguments, self.log_sink(ctx))

        async def on_set_level(ctx: Any, params: SetLevelRequestParams) -> Any:
            self.set_level(connection_key(ctx), params.level)
            return EmptyResult()

        async def on_list_resources(_ctx: Any, _params: PaginatedRequestParams | None) -> Any:
            return ListResourcesResult(resources=self.spills.resources())

        async def on_list_templates(_ctx: Any, _params: PaginatedRequestParams | None) -> Any:
            return ListResourceTemplatesResult(resource_templates=self.spills.templates())

        async def on_read_resource(_ctx: Any, params: ReadResourceRequestParams) -> Any:
            return await self.spills.read(params.uri)

        server = Server(
            SERVER_NAME,
            version=__version__,
            instructions=f"Read-only file tools over {self.root}: read files, list "
            "directories, find files by name or glob, search contents with grep.",
            on_list_tools=on_list_tools,
            on_call_tool=on_call_tool,
            on_list_resources=on_list_resources,
            on_list_resource_templates=on_list_templates,
            on_read_resource=on_read_resource,
        )
        # Registered like this, not as on_set_logging_level, which warns that logging is
        # deprecated from 2026-07-28 on; the capability is declared all the same.
        server.add_request_handler("logging/setLevel", SetLevelRequestParams, on_set_level)
        return server


def connection_key(ctx: Any) -> str | None:
    """Which connection a request came on: its ``Mcp-Session-Id`` over HTTP, None over stdio
    (one connection)."""
    headers = getattr(ctx.request, "headers", None)
    if headers is None:
        return None
    value = headers.get("mcp-session-id")
    return str(value) if value else None


async def serve_stdio(root: Path, budget: BudgetSettings | None = None) -> None:
    from mcp.server.stdio import stdio_server

    tools = ToolServer(root, budget=budget)
    tools.report_problems(sys.stderr)
    server = tools.build()
    try:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
    finally:
        tools.spills.close()


def run(root: Path, budget: BudgetSettings | None = None) -> int:
    """Serve until the client closes stdin."""
    try:
        asyncio.run(serve_stdio(root, budget))
    except KeyboardInterrupt:
        return 130
    return 0
