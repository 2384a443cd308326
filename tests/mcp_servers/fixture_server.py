"""A small MCP server built on the official SDK, with switchable misbehaviour, for tests.

    python fixture_server.py [--mode MODE] [--port PORT] [--name NAME]

Modes: ``normal`` (default), ``exit-at-start`` (writes to stderr and exits 3 before the
handshake), ``hang-at-start`` (reads nothing, answers nothing), ``garbage`` (prints non-JSON
lines on stdout before and between messages), ``http`` (streamable HTTP on 127.0.0.1:PORT),
``slow-start`` (reads nothing until ``--gate FILE`` exists, or for ``--delay SECONDS`` without
one, then serves as ``normal``: a server slow to answer ``initialize``).

Tools: ``echo``, ``add``, ``slow`` (progress notifications), ``crash`` (the process dies
mid-call), ``hang`` (never returns), ``flood`` (floods stderr), ``big`` (a large text),
``image``, ``audio``, ``fail`` (``isError``), ``pid``, ``links`` (resource link and embedded
resources), ``structured``, ``add_tool`` (registers a new tool and announces the change),
``garble`` (prints garbage on stdout, then answers), ``malformed`` (answers with a result that
breaks the protocol; ``garbage`` mode only). ``--extra-tools N`` adds N filler tools
``tool_00`` … (a server with many tools, for the panel's benchmark and tests).

Prompts: ``review`` (arguments ``path`` required, ``focus`` optional), ``greet`` (no
arguments; two messages, one with an image). Mode ``prompts`` (otherwise ``normal``) adds the
tool ``add_prompt``, which registers a prompt and announces the change.

Mode ``logs`` adds the tool ``say`` (``level``, ``data``, ``logger``): it sends ``data`` as a log
message (``notifications/message``, sent whether or not the request opted in to logs, as a
handshake-era server does); and two resources, ``fixture://note`` (text) and
``fixture://logo.png`` (a 1x1 PNG), and the tool ``add_resource`` (adds one and announces
``resources/list_changed``). The server declares no logging capability (no
``logging/setLevel``), as the SDK's servers do.

Mode ``tasks``: a plain JSON-RPC server (no SDK) that speaks only 2025-11-25 — ``execution``
is a field of that version, removed in 2026-07-28, and the SDK's servers negotiate the newer
one — with two tools: ``echo`` and ``long_job``, listed with ``execution.taskSupport:
"required"`` (a call of it without a task is refused, as the spec says).

Mode ``http-status``: a plain JSON-RPC server over HTTP (no SDK, 2025-11-25, JSON answers) on
127.0.0.1:PORT at any path. With ``--status N`` it answers every request with HTTP status N
(a 401, 403, 404 or 500 from the start); without, it serves ``echo`` and ``http_error``,
which answers its call with the HTTP status in its argument ``status`` (a 500 mid-session);
``--ref URL`` adds the tool ``refd``, whose input schema has a remote ``$ref`` to URL.
``--session`` gives each ``initialize`` a session (``Mcp-Session-Id``) and answers a request of
a session it does not know with 404; its tool ``forget`` forgets every session (as a server
that restarted does).
"""

import argparse
import asyncio
import base64
import json
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

LAUNCHER_PID = "FIXTURE_LAUNCHER_PID"
"""Set by the tests' zygote (``zygote.py``) in a server it forked: the pid of the launcher the
client spawned, which ends as the server does and kills it when killed."""

WIRE: list[int] = []
"""In ``garbage`` mode, a copy of the real stdout (the SDK moves the protocol off fd 1)."""

PNG_1x1 = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9Q"
    "DwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


def build(name: str, mode: str = "normal", extra_tools: int = 0) -> "MCPServer":
    # the SDK is imported here, not at the top: the SDK-free modes (``exit-at-start``,
    # ``hang-at-start``, ``tasks``, ``http-status``) start without its ~1.3 CPU-seconds of
    # imports
    from mcp.server.mcpserver import Context, MCPServer
    from mcp.types import (
        AudioContent,
        BlobResourceContents,
        CallToolResult,
        EmbeddedResource,
        ImageContent,
        ResourceLink,
        TextContent,
        TextResourceContents,
        ToolAnnotations,
    )

    server = MCPServer(name)
    read_only = ToolAnnotations(read_only_hint=True, destructive_hint=False)
    for index in range(extra_tools):
        _add_filler(server, index)

    @server.tool(annotations=read_only)
    def echo(text: str) -> str:
        """Return the text unchanged."""
        return text

    @server.tool(annotations=read_only)
    def add(a: int, b: int) -> str:
        """Add two integers."""
        return str(a + b)

    @server.tool(annotations=read_only)
    async def slow(steps: int, ctx: Context, delay: float = 0.05, mark: str = "") -> str:
        """Count to ``steps``, reporting progress at each step."""
        try:
            for i in range(1, steps + 1):
                await asyncio.sleep(delay)
                await ctx.report_progress(i, steps, f"step {i} of {steps}")
        except asyncio.CancelledError:  # the client sent notifications/cancelled
            if mark:  # the test's file: the cancellation reached this handler
                Path(mark).write_text(f"cancelled at step {i}\n", encoding="utf-8")  # noqa: ASYNC240
            raise
        return f"counted to {steps}"

    @server.tool()
    def crash() -> str:
        """Die in the middle of the call."""
        sys.stderr.write("fixture: crashing now\n")
        sys.stderr.flush()
        os._exit(7)

    @server.tool()
    async def hang() -> str:
        """Never return."""
        await asyncio.sleep(3600)
        return "unreachable"

    @server.tool()
    def flood(lines: int = 20000) -> str:
        """Write many lines to stderr, then answer."""
        chunk = "".join(f"fixture noise line {i}\n" for i in range(lines))
        sys.stderr.write(chunk)
        sys.stderr.flush()
        return f"wrote {lines} lines to stderr"

    @server.tool(annotations=read_only)
    def big(chars: int = 200_000) -> str:
        """A large text result."""
        line = "0123456789" * 7 + "\n"
        return (line * (chars // len(line) + 1))[:chars]

    @server.tool(annotations=read_only)
    def image() -> list[Any]:
        """A tiny PNG and a caption."""
        return [
            TextContent(type="text", text="a red pixel"),
            ImageContent(type="image", data=PNG_1x1, mime_type="image/png"),
        ]

    @server.tool(annotations=read_only)
    def audio() -> list[Any]:
        """A short WAV header."""
        data = base64.b64encode(b"RIFF\x24\x00\x00\x00WAVEfmt ").decode()
        return [AudioContent(type="audio", data=data, mime_type="audio/wav")]

    @server.tool()
    def fail(reason: str = "it went wrong") -> CallToolResult:
        """Answer with isError."""
        return CallToolResult(content=[TextContent(type="text", text=reason)], is_error=True)

    @server.tool(annotations=read_only)
    def pid() -> str:
        """The server's process id: the process its client spawned (a server forked by the
        tests' zygote answers with its launcher's, which stands for it)."""
        return os.environ.get(LAUNCHER_PID, str(os.getpid()))

    @server.tool(annotations=read_only)
    def links() -> list[Any]:
        """A resource link and two embedded resources."""
        blob = base64.b64encode(b"\x00\x01binary").decode()
        return [
            ResourceLink(type="resource_link", uri="file:///tmp/a.txt", name="a.txt"),
            EmbeddedResource(
                type="resource",
                resource=TextResourceContents(uri="mem://note", text="embedded note"),
            ),
            EmbeddedResource(
                type="resource",
                resource=BlobResourceContents(
                    uri="mem://blob", blob=blob, mime_type="application/octet-stream"
                ),
            ),
        ]

    @server.tool(annotations=read_only)
    def structured(city: str) -> dict[str, Any]:
        """Structured content."""
        return {"city": city, "temperature": 21}

    @server.tool()
    async def add_tool(tool_name: str, ctx: Context) -> str:
        """Register a new tool named ``tool_name`` and announce the change."""

        def extra() -> str:
            return f"I am {tool_name}"

        server.add_tool(extra, name=tool_name, description=f"added at run time: {tool_name}")
        await ctx.notify_tools_changed()  # 2026-07-28 connections (subscriptions/listen)
        try:  # handshake-era connections
            await ctx.request_context.session.send_tool_list_changed()
        except Exception:
            pass
        return f"added {tool_name}"

    @server.prompt(description="Review a file for bugs")
    def review(path: str, focus: str = "") -> str:
        """Review a file."""
        return f"Please review {path}" + (f", focusing on {focus}" if focus else "") + "."

    @server.prompt(description="Say hello twice")
    def greet() -> list[Any]:
        """Two messages, the second with an image."""
        return [
            {"role": "user", "content": {"type": "text", "text": "Hello from the fixture."}},
            {
                "role": "assistant",
                "content": {"type": "image", "data": PNG_1x1, "mimeType": "image/png"},
            },
        ]

    if mode == "logs":  # a tool of its own mode: the other modes keep their 16 tools

        @server.tool()
        async def say(level: str, data: Any, ctx: Context, logger: str = "fixture") -> str:
            """Send ``data`` as a log message (``notifications/message``) at ``level``."""
            from mcp.types import LoggingMessageNotification, LoggingMessageNotificationParams

            # not ctx.log: on 2026-07-28 that sends only when the request's _meta opted in
            params = LoggingMessageNotificationParams(level=level, data=data, logger=logger)  # type: ignore[arg-type]
            await ctx.request_context.session.send_notification(
                LoggingMessageNotification(params=params)
            )
            return f"logged {level}"

        @server.resource("fixture://note", name="note", mime_type="text/plain")
        def note() -> str:
            return "a note from the fixture\nsecond line"

        @server.resource("fixture://logo.png", name="logo", mime_type="image/png")
        def logo() -> bytes:
            return base64.b64decode(PNG_1x1)

        @server.tool()
        async def add_resource(resource_name: str, ctx: Context) -> str:
            """Add the text resource ``fixture://<resource_name>`` and announce the change."""

            def added() -> str:
                return f"I am {resource_name}"

            server.resource(f"fixture://{resource_name}", name=resource_name)(added)
            await ctx.notify_resources_changed()
            try:
                await ctx.request_context.session.send_resource_list_changed()
            except Exception:
                pass
            return f"added {resource_name}"

    if mode == "prompts":  # a tool of its own mode: the other modes keep their 16 tools

        @server.tool()
        async def add_prompt(prompt_name: str, ctx: Context) -> str:
            """Register a new prompt named ``prompt_name`` and announce the change."""
            from mcp.server.mcpserver.prompts.base import Prompt

            def extra() -> str:
                return f"I am the prompt {prompt_name}"

            server.add_prompt(Prompt.from_function(extra, name=prompt_name, description="added"))
            await ctx.notify_prompts_changed()
            try:
                await ctx.request_context.session.send_prompt_list_changed()
            except Exception:
                pass
            return f"added {prompt_name}"

    @server.tool(annotations=read_only)
    def garble() -> str:
        """Print garbage on stdout, then answer."""
        os.write(WIRE[0] if WIRE else 1, b"this is not JSON\n{broken json\n")
        return "garbled"

    @server.tool(annotations=read_only)
    async def malformed(ctx: Context) -> str:
        """Answer with a result that is not a CallToolResult, then never answer properly."""
        request_id = ctx.request_context.request_id
        bad = {"jsonrpc": "2.0", "id": request_id, "result": {"content": "not a list"}}
        os.write(WIRE[0] if WIRE else 1, (json.dumps(bad) + "\n").encode())
        await asyncio.sleep(3600)
        return "unreachable"

    return server


def _add_filler(server: "MCPServer", index: int) -> None:
    """Filler tool ``tool_NN`` (``--extra-tools``): a server with many tools for the panel."""

    def filler(query: str, limit: int = 10) -> str:
        return f"tool_{index:02d}: {query} ({limit})"

    description = (
        f"Filler tool number {index}: looks up {query_words[index % len(query_words)]} "
        "in the fixture's pretend index and answers with the query it was given."
    )
    server.add_tool(filler, name=f"tool_{index:02d}", description=description)


query_words = ["issues", "commits", "files", "builds", "pages", "tickets", "logs"]


TASK_TOOLS = [
    {
        "name": "echo",
        "description": "Return the text unchanged.",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
        "annotations": {"readOnlyHint": True},
    },
    {
        "name": "long_job",
        "description": "A long job that must run as a task.",
        "inputSchema": {"type": "object", "properties": {"seconds": {"type": "number"}}},
        "execution": {"taskSupport": "required"},
    },
]


def _answer(request: dict[str, Any]) -> dict[str, Any] | None:
    method, params = request.get("method"), request.get("params") or {}
    if "id" not in request:
        return None  # a notification
    reply: dict[str, Any] = {"jsonrpc": "2.0", "id": request["id"]}
    if method == "initialize":
        reply["result"] = {
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}, "tasks": {"requests": {"tools": {"call": {}}}}},
            "serverInfo": {"name": "fixture-tasks", "version": "1.0"},
        }
    elif method == "tools/list":
        reply["result"] = {"tools": TASK_TOOLS}
    elif method == "tools/call" and params.get("name") == "echo":
        text = (params.get("arguments") or {}).get("text", "")
        reply["result"] = {"content": [{"type": "text", "text": text}]}
    elif method == "tools/call":
        reply["error"] = {"code": -32601, "message": "long_job must be called as a task"}
    elif method == "ping":
        reply["result"] = {}
    else:
        reply["error"] = {"code": -32601, "message": f"Method not found: {method}"}
    return reply


def serve_tasks() -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        reply = _answer(json.loads(line))
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


STATUS_TOOLS = [
    TASK_TOOLS[0],
    {
        "name": "http_error",
        "description": "Answer the call with the HTTP error status `status`.",
        "inputSchema": {
            "type": "object",
            "properties": {"status": {"type": "integer"}},
            "required": ["status"],
        },
    },
]


def serve_http_status(
    port: int, status: int | None, ref: str | None = None, session: bool = False
) -> None:
    import uuid
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    sessions: set[str] = set()

    class Handler(BaseHTTPRequestHandler):
        def _send(
            self, code: int, body: bytes = b"", kind: str = "text/plain", sid: str = ""
        ) -> None:
            self.send_response(code)
            self.send_header("content-type", kind)
            self.send_header("content-length", str(len(body)))
            if sid:
                self.send_header("mcp-session-id", sid)
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            request = json.loads(self.rfile.read(length) or b"{}")
            if status is not None:
                return self._send(status, b"refused by the fixture")
            params = request.get("params") or {}
            sid = self.headers.get("mcp-session-id")
            if session and sid is not None and sid not in sessions:
                return self._send(404, b"no such session")
            if session and request.get("method") == "initialize":
                sid = uuid.uuid4().hex
                sessions.add(sid)
                body = json.dumps(_answer(request)).encode()
                return self._send(200, body, "application/json", sid)
            if request.get("method") == "tools/call" and params.get("name") == "forget":
                sessions.clear()
                result = {"content": [{"type": "text", "text": "forgot every session"}]}
                body = json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": result})
                return self._send(200, body.encode(), "application/json")
            if request.get("method") == "tools/call" and params.get("name") == "http_error":
                code = int((params.get("arguments") or {}).get("status", 500))
                return self._send(code, b"the fixture failed on purpose")
            if request.get("method") == "tools/call" and params.get("name") == "refd":
                result = {"content": [{"type": "text", "text": "refd ran"}]}
                body = {"jsonrpc": "2.0", "id": request["id"], "result": result}
                return self._send(200, json.dumps(body).encode(), "application/json")
            if request.get("method") == "tools/list":
                tools = list(STATUS_TOOLS)
                if session:
                    schema = {"type": "object", "properties": {}}
                    tools.append(
                        {"name": "forget", "description": "Forget.", "inputSchema": schema}
                    )
                if ref is not None:
                    schema = {"type": "object", "properties": {"a": {"$ref": ref}}}
                    tools.append({"name": "refd", "description": "Refers.", "inputSchema": schema})
                reply: dict[str, Any] | None = {
                    "jsonrpc": "2.0",
                    "id": request["id"],
                    "result": {"tools": tools},
                }
            else:
                reply = _answer(request)
            if reply is None:
                return self._send(202)
            self._send(200, json.dumps(reply).encode(), "application/json")

        def do_GET(self) -> None:
            self._send(405)

        def do_OPTIONS(self) -> None:  # what a probe of a client asks (``status`` too)
            self._send(status or 204)

        def do_DELETE(self) -> None:
            self._send(405)

        def log_message(self, *args: Any) -> None:
            pass

    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


def _slow_start(gate: str | None, delay: float) -> None:
    """Answer nothing (``initialize`` waits in the pipe) until ``gate`` exists, or ``delay``."""
    if gate is None:
        time.sleep(delay)
        return
    while not Path(gate).exists():
        time.sleep(0.02)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default="normal")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--name", default="fixture")
    parser.add_argument("--status", type=int, default=None)
    parser.add_argument("--ref", default=None)
    parser.add_argument("--session", action="store_true")
    parser.add_argument("--extra-tools", type=int, default=0, help="filler tools tool_NN")
    parser.add_argument("--gate", default=None, help="slow-start: wait until this file exists")
    parser.add_argument("--delay", type=float, default=2.0, help="slow-start without --gate")
    args = parser.parse_args()
    if args.mode == "http-status":
        serve_http_status(args.port, args.status, args.ref, args.session)
        return
    if args.mode == "exit-at-start":
        sys.stderr.write("fixture: bad configuration, giving up\n")
        sys.exit(3)
    if args.mode == "hang-at-start":
        time.sleep(3600)
        return
    if args.mode == "tasks":
        serve_tasks()
        return
    if args.mode == "slow-start":
        _slow_start(args.gate, args.delay)
    if args.mode == "garbage":
        os.write(1, b"Welcome to the fixture server!\n")
        WIRE.append(os.dup(1))
    server = build(args.name, args.mode, args.extra_tools)
    if args.mode == "http":
        server.run("streamable-http", host="127.0.0.1", port=args.port)
    else:
        server.run("stdio")


if __name__ == "__main__":
    main()
