"""``agent-tui mcp …``: list, call, add and remove MCP servers; serve our own tools.

    agent-tui mcp list [--json] [--connect]         servers, status, errors, tool names
    agent-tui mcp call SERVER TOOL [JSON]           one call, printing what the model sees
    agent-tui mcp add NAME COMMAND [ARGS...]        a stdio server in the project .mcp.json
    agent-tui mcp add --transport http NAME URL     a streamable HTTP server
    agent-tui mcp remove NAME
    agent-tui mcp login NAME [--no-browser]         OAuth sign-in to an HTTP server
    agent-tui mcp logout NAME                       forget its saved tokens
    agent-tui mcp serve [--cwd DIR]                 read-only tools over stdio
    agent-tui mcp serve --transport http [--port N] [--host H] [--allow-remote]
                                                    the same over streamable HTTP (loopback)

``list`` and ``call`` go through the same manager, adapter and output budget as the agent.
``list`` exits 1 when a configuration file or entry cannot be used (each problem on stderr,
or in the ``error`` and ``problems`` fields with ``--json``), and when no server connected
while some failed (every server that was to run failed: nothing works); else 0 — one server
that fails among working ones is a status it lists, not an error of the command. A lazy
server (``"start": "lazy"``, the default) whose tool list is cached is not started by
``list``: it is listed as ``lazy`` with its cached tools; ``--connect`` starts it too, to check
it really connects.
One without a cache yet is started (which caches its tools). ``call`` starts only its server.
``call`` prints what the model would see on stdout; when the call fails, also one line on
stderr saying so (exit 1). Usage mistakes (an unknown server or tool, ``--args`` that is not
a JSON object) exit 2 with what to do.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agent_tui.cli.mcp_auth import add_parsers as add_auth_parsers
from agent_tui.cli.mcp_auth import run as run_auth
from agent_tui.cli.parser import StrictParser
from agent_tui.core.calls import ServerWait
from agent_tui.core.mcp.client.manager import McpManager
from agent_tui.core.mcp.client.state import ServerState, start_failure
from agent_tui.core.mcp.config.edit import ConfigEditError, add_server, remove_server
from agent_tui.core.mcp.config.load import project_config_path, user_config_path
from agent_tui.core.text.summary import plural


def build_parser() -> argparse.ArgumentParser:
    parser = StrictParser(prog="agent-tui mcp", description="Manage MCP servers.")
    parser.add_argument("--cwd", type=Path, help="the project directory (default: current)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    listing = sub.add_parser("list", help="configured servers, their status and tools")
    listing.add_argument("--json", action="store_true", help="print one JSON object")
    listing.add_argument(
        "--connect",
        action="store_true",
        help="start lazy servers too (default: list them with their cached tools)",
    )

    call = sub.add_parser("call", help="call one tool and print what the model would see")
    call.add_argument("server")
    call.add_argument("tool", help="the tool's name on the server (or its mcp__… name)")
    call.add_argument(
        "arguments", nargs="?", metavar="JSON", help="the arguments object (or give --args)"
    )
    call.add_argument("--args", metavar="JSON", help="the arguments object")

    add = sub.add_parser("add", help="add a server to the project .mcp.json")
    add.add_argument("--transport", "-t", choices=["stdio", "http"], default="stdio")
    add.add_argument("--env", "-e", action="append", default=[], metavar="KEY=VALUE")
    add.add_argument("--header", "-H", action="append", default=[], metavar="'Name: value'")
    add.add_argument(
        "--timeout", type=float, help="seconds a call may go without progress (default 60)"
    )
    add.add_argument(
        "--max-total-timeout", type=float, help="seconds a call may take in all (default 600)"
    )
    add.add_argument("--startup-timeout", type=float, help="seconds to connect (default 15)")
    add.add_argument("--scope", choices=["project", "user"], default="project")
    add.add_argument("--disabled", action="store_true", help="add it disabled")
    add.add_argument("--replace", action="store_true", help="replace a server of that name")
    add.add_argument("name")
    add.add_argument("target", metavar="COMMAND_OR_URL")
    add.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS")

    remove = sub.add_parser("remove", help="remove a server from the project .mcp.json")
    remove.add_argument("--scope", choices=["project", "user"], default="project")
    remove.add_argument("name")

    add_auth_parsers(sub)
    serve = sub.add_parser("serve", help="serve the read-only built-in tools (MCP)")
    serve.add_argument(
        "--transport",
        "-t",
        choices=["stdio", "http"],
        default="stdio",
        help="stdio (default) or streamable HTTP at http://HOST:PORT/mcp",
    )
    serve.add_argument(
        "--port", type=int, default=None, help="http: the port (0: a free one, printed on stderr)"
    )
    serve.add_argument(
        "--host",
        default="127.0.0.1",
        help="http: the address (default 127.0.0.1; loopback only unless --allow-remote)",
    )
    serve.add_argument(
        "--allow-remote",
        action="store_true",
        help="http: allow a non-loopback --host (there is NO authentication)",
    )
    for command in sub.choices.values():  # --cwd after the command works too
        command.add_argument("--cwd", dest="sub_cwd", type=Path, help=argparse.SUPPRESS)
    return parser


def main(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(list(argv))
    cwd = (args.sub_cwd or args.cwd or Path.cwd()).resolve()
    if not cwd.is_dir():
        return _fail(f"--cwd {cwd} is not a directory")
    if args.command == "serve":
        return _serve(args, cwd)
    if args.command in ("add", "remove"):
        return _edit(args, cwd)
    if args.command in ("login", "logout"):
        return run_auth(args, cwd)
    if args.command == "list":
        return asyncio.run(_list(cwd, as_json=args.json, connect=args.connect))
    if args.arguments is not None and args.args is not None:
        print(
            "agent-tui mcp call: give the arguments once, as JSON after the tool's name or "
            "with --args, not both",
            file=sys.stderr,
        )
        return 2
    raw = args.arguments if args.arguments is not None else args.args
    return asyncio.run(_call(cwd, args.server, args.tool, raw if raw is not None else "{}"))


def _fail(message: str, code: int = 2) -> int:
    print(f"agent-tui mcp: {message}", file=sys.stderr)
    return code


def _serve(args: argparse.Namespace, cwd: Path) -> int:
    from agent_tui.core.settings import load_settings

    if args.transport == "stdio":
        if args.port is not None or args.host != "127.0.0.1" or args.allow_remote:
            return _fail("--port, --host and --allow-remote are for --transport http")
        from agent_tui.core.mcp.server.tool_server import run

        return run(cwd, load_settings(cwd).settings.budget)
    if args.port is None:
        return _fail("--transport http needs --port N (0 picks a free port)")
    if not 0 <= args.port <= 65535:
        return _fail(f"--port {args.port} is not a port number (0 to 65535)")
    from agent_tui.core.mcp.server.http import run as run_http

    budget = load_settings(cwd).settings.budget
    return run_http(cwd, args.host, args.port, allow_remote=args.allow_remote, budget=budget)


# -- add / remove -------------------------------------------------------------------------


def _edit(args: argparse.Namespace, cwd: Path) -> int:
    path = project_config_path(cwd) if args.scope == "project" else user_config_path()
    within = cwd if args.scope == "project" else None  # a project file: no link followed
    try:
        if args.command == "remove":
            remove_server(path, args.name, within=within)
            print(f"removed {args.name!r} from {path}")
            return 0
        entry = _entry(args)
        replaced = add_server(path, args.name, entry, replace=args.replace, within=within)
    except (ConfigEditError, ValueError) as exc:
        return _fail(str(exc))
    print(f"{'replaced' if replaced else 'added'} {args.name!r} in {path}")
    return 0


def _entry(args: argparse.Namespace) -> dict[str, Any]:
    entry: dict[str, Any] = {}
    rest = [a for a in args.args if a != "--"] if args.args[:1] == ["--"] else list(args.args)
    if args.transport == "http":
        if rest:
            raise ValueError("an http server takes only a URL, no arguments")
        entry["type"] = "http"
        entry["url"] = args.target
        headers: dict[str, str] = {}
        for header in args.header:
            key, sep, value = header.partition(":")
            if not sep or not key.strip():
                raise ValueError(f"--header {header!r} must look like 'Name: value'")
            headers[key.strip()] = value.strip()
        if headers:
            entry["headers"] = headers
    else:
        if args.header:
            raise ValueError("--header is for http servers")
        entry["command"] = args.target
        if rest:
            entry["args"] = rest
        env: dict[str, str] = {}
        for item in args.env:
            key, sep, value = item.partition("=")
            if not sep or not key:
                raise ValueError(f"--env {item!r} must look like KEY=VALUE")
            env[key] = value
        if env:
            entry["env"] = env
    if args.timeout is not None:
        entry["timeout"] = args.timeout
    if args.max_total_timeout is not None:
        entry["max_total_timeout"] = args.max_total_timeout
    if args.startup_timeout is not None:
        entry["startup_timeout"] = args.startup_timeout
    if args.disabled:
        entry["disabled"] = True
    return entry


# -- list -------------------------------------------------------------------------------


def _manager(cwd: Path, only: set[str] | None = None, *, keep_lazy: bool = False) -> McpManager:
    from agent_tui.core.settings import load_settings
    from agent_tui.core.tools.builtin import default_registry

    budget = load_settings(cwd).settings.budget
    return McpManager(
        cwd,
        default_registry(),
        media_dir=Path(budget.spill_dir) / "mcp-media",
        only=only,
        keep_lazy=keep_lazy,
    )


async def _list(cwd: Path, *, as_json: bool, connect: bool = False) -> int:
    from agent_tui.core.disclosure import Disclosure
    from agent_tui.core.mcp.client.overview import build_overview
    from agent_tui.core.settings import load_settings

    manager = _manager(cwd, keep_lazy=not connect)
    try:
        await manager.start()
        await manager.wait_ready()
        disclosure = Disclosure(manager.registry, load_settings(cwd).settings.disclosure)
        overview = build_overview(
            manager, registry=manager.registry, cwd=cwd, disclosure=disclosure
        )
    finally:
        await manager.aclose()
    problems = [str(p) for p in overview.problems]
    code = 1 if problems or _all_failed(overview.servers) else 0
    if as_json:
        servers = []
        for row in overview.servers:
            server = _state_json(row.state)
            for tool, tool_row in zip(server["tools"], row.tools, strict=True):
                tool["disclosure"] = tool_row.mark.kind
            servers.append(server)
        payload = {
            "error": "\n".join(problems) or None,
            "servers": servers,
            "problems": problems,
            "files": [str(p) for p in overview.files],
            "tools_cost": dict(overview.cost),
        }
        print(json.dumps(payload, indent=2, ensure_ascii=False))
        return code
    for problem in problems:  # stderr: what is wrong with the configuration, file first
        print(f"agent-tui mcp: configuration error: {problem}", file=sys.stderr)
    if not overview.servers and not problems:
        files = " or ".join(str(p) for p in overview.files)
        print(f"No MCP servers configured (looked in {files}).")
    for row in overview.servers:
        state = row.state
        print(_state_line(state))
        for tool_row in row.tools:
            tool = tool_row.info
            marks = "read-only" if tool.read_only else ("destructive" if tool.destructive else "")
            if tool_row.mark.kind != "direct":
                marks = ", ".join(filter(None, [marks, tool_row.mark.kind]))
            print(f"    {tool.name}" + (f"  [{marks}]" if marks else ""))
            if tool.unavailable:
                print(f"      {tool.unavailable}")
            if tool.schema_problem:
                print(
                    f"      its input schema was replaced by a plain object: {tool.schema_problem}"
                )
        for line in state.stderr_tail[-5:] if state.status == "failed" else ():
            print(f"    stderr: {line}")
        for note in state.notes:
            print(f"    note: {note}")
    if any(row.tools for row in overview.servers):
        print(overview.cost_line)
    return code


def _all_failed(rows: Sequence[Any]) -> bool:
    """No server connected and at least one failed (the disabled ones did not run; a lazy one
    not started, its tools cached from its last connect, is not known to fail)."""
    statuses = {row.state.status for row in rows}
    return "failed" in statuses and not statuses & {"connected", "lazy"}


def _state_line(state: ServerState) -> str:
    where = f"{state.transport}: {state.target}" if state.target else state.transport
    head = f"{state.name}  ({where})  {state.status}"
    if state.status == "connected":
        extra = plural(state.tool_count, "tool")
        if state.connect_seconds is not None:
            extra += f", {state.connect_seconds:.2f} s"
        if state.protocol_version:
            extra += f", protocol {state.protocol_version}"
        return f"{head}: {extra}"
    if state.status == "lazy":
        cached = plural(len(state.tools), "cached tool")
        return f"{head}: not started, {cached} (--connect starts it)"
    return f"{head}: {state.reason}" if state.reason else head


def _state_json(state: ServerState) -> dict[str, Any]:
    return {
        "name": state.name,
        "transport": state.transport,
        "target": state.target,
        "status": state.status,
        "error": state.reason,
        "auth_required": state.auth_required,
        "failure_kind": state.failure_kind,
        "http_status": state.http_status,
        "protocol_version": state.protocol_version,
        "server_info": state.server_info,
        "connect_seconds": state.connect_seconds,
        "tool_count": state.tool_count,
        "tools": [
            {
                "name": t.name,
                "remote_name": t.remote_name,
                "read_only": t.read_only,
                "destructive": t.destructive,
                "schema_problem": t.schema_problem,
                "unavailable": t.unavailable,
            }
            for t in state.tools
        ],
        "stderr_tail": list(state.stderr_tail),
        "notes": list(state.notes),
        "source": state.source,
    }


# -- call -------------------------------------------------------------------------------


async def _call(cwd: Path, server: str, tool: str, raw_args: str) -> int:
    from agent_tui.core.budget import SpillStore
    from agent_tui.core.events import Spill, ToolErrorEvent, ToolProgress, ToolResult
    from agent_tui.core.executor import ToolExecutor
    from agent_tui.core.permissions import SimplePolicy
    from agent_tui.core.settings import load_settings
    from agent_tui.core.tools.file_state import FileStateCache
    from agent_tui.core.transcript import Message, ToolCall

    manager = _manager(cwd, only={server})
    if server not in manager.config.servers:
        known = ", ".join(manager.config.servers) or "none"
        unread = [str(p) for p in manager.problems if p.unread]
        why = "".join(f"; and {problem}" for problem in unread)
        return _fail(
            f"no MCP server named {server!r} (configured: {known}){why}; "
            "`agent-tui mcp list` shows them"
        )
    bad_args = _args_problem(raw_args)
    if bad_args is not None:
        return _fail(bad_args)
    manager.elicitation.add_listener(  # no one to ask here: declined, and said so
        lambda notice: print(f"agent-tui mcp: {notice.reason}", file=sys.stderr, flush=True)
    )
    try:
        await manager.start()
        await manager.wait_ready()
        state = manager.state(server)
        if state.status != "connected":
            return _fail(_not_connected(state), 1)
        names = {t.remote_name: t.name for t in state.tools}
        name = names.get(tool) or (tool if tool in names.values() else None)
        if name is None:
            return _fail(
                f"the MCP server {server!r} has no tool {tool!r} "
                f"(its tools: {', '.join(names) or 'none'})"
            )
        budget = load_settings(cwd).settings.budget
        executor = ToolExecutor(
            manager.registry,
            cwd,
            SimplePolicy(["*"]),
            None,
            FileStateCache(),
            budget=budget,
            store=SpillStore(Path(budget.spill_dir), cwd),
        )
        out: list[Message] = []
        code = 0
        call = ToolCall(id="cli-call", name=name, arguments=raw_args)
        async for event in executor.execute([call], out, asyncio.Event()):
            if isinstance(event, ToolProgress) and event.message != "started":
                if event.progress is None and event.message is None:
                    if event.waiting is not None:  # a sign of life that is not progress
                        print(_waiting_line(event.waiting), file=sys.stderr)
                    continue
                done = "" if event.progress is None else f" {event.progress:g}"
                done += f"/{event.total:g}" if done and event.total is not None else ""
                print(f"[progress{done}] {event.message or ''}".rstrip(), file=sys.stderr)
            elif isinstance(event, Spill):
                print(f"[full output saved to {event.path}]", file=sys.stderr)
            elif isinstance(event, ToolErrorEvent):
                code = 1
                lines = [f"the call failed ({event.code}): {event.message}", *event.details]
                print("\n  ".join([f"agent-tui mcp: {lines[0]}", *lines[1:]]), file=sys.stderr)
            elif isinstance(event, ToolResult) and event.is_error:
                code = 1
                print("agent-tui mcp: the call failed (its result is on stdout)", file=sys.stderr)
        for message in out:
            print(message.content)
        return code
    finally:
        await manager.aclose()


def _waiting_line(wait: ServerWait) -> str:
    """``[waiting for everything: 12 s, last output 0 s ago: npm http fetch …]``."""
    last = f"last {wait.sign} {wait.quiet:.0f} s ago" if wait.sign else "no progress yet"
    said = f": {wait.said}" if wait.said else ""
    return f"[waiting for {wait.server}: {wait.waited:.0f} s, {last}{said}]"


def _args_problem(raw_args: str) -> str | None:
    """What is wrong with the arguments (None: they are a JSON object), said for a shell
    user."""
    example = 'e.g. agent-tui mcp call SERVER TOOL \'{"text": "hi"}\''
    try:
        value = json.loads(raw_args)
    except json.JSONDecodeError as exc:
        return (
            f"the arguments are not valid JSON: {exc.msg} at line {exc.lineno} column "
            f"{exc.colno} (pass one JSON object in single quotes, {example})"
        )
    if not isinstance(value, dict):
        return f"the arguments must be a JSON object, not {type(value).__name__} ({example})"
    return None


def _not_connected(state: ServerState) -> str:
    """Why ``call`` cannot reach ``state``'s server, with its last stderr lines."""
    if state.status == "failed":
        text = start_failure(state)
        tail = state.stderr_tail[-5:]
        return text + "".join(f"\n  stderr: {line}" for line in tail)
    if state.status == "disabled":
        return f"the MCP server {state.name!r} is turned off: {state.reason}"
    why = f": {state.reason}" if state.reason else ""
    return f"the MCP server {state.name!r} is {state.status}{why}"
