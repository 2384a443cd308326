"""``agent-tui mcp serve --transport http``: the same tools over streamable HTTP.

The handlers are ``ToolServer``'s (the same permission rules, read guard and path checks as
over stdio); the SDK's ``Server.streamable_http_app`` (its ``StreamableHTTPSessionManager``)
speaks the transport, uvicorn serves it. Both are imported only when this starts, so the
rest of the program does not pay for them (nothing imports this module but the ``serve``
command).

There is no authentication: whoever can reach the port can read what the tools show. So the
server binds to a loopback address (127.0.0.1 by default) and refuses any other host unless
``allow_remote`` is given, and then says so on stderr. On loopback the SDK's DNS-rebinding
protection is on (a request whose ``Host`` or ``Origin`` is not a loopback name is refused),
so a web page in a browser cannot reach it through a name of its own.

Once it listens, one line on stderr gives its URL (``--port 0`` picks a free port, so that
line is how to find it); SIGINT or SIGTERM stops it: open streams are ended, then it exits 0.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import signal
import socket
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final, TextIO

import uvicorn

from agent_tui.core.budget.config import BudgetSettings
from agent_tui.core.mcp.server.tool_server import ToolServer

MCP_PATH: Final = "/mcp"
GRACE_SECONDS: Final = 5
"""How long a stop waits for open requests before cancelling them."""
PREFIX: Final = "agent-tui mcp serve"


class ServeError(Exception):
    """The server cannot start as asked (the message says why and what to do)."""


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only (``localhost``, 127.0.0.0/8, ``::1``)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_host(host: str, allow_remote: bool) -> str | None:
    """A warning to print when ``host`` is reachable from other machines and that was allowed,
    None for loopback; raises ``ServeError`` when it was not allowed."""
    if is_loopback(host):
        return None
    if not allow_remote:
        raise ServeError(
            f"--host {host} is not a loopback address, and this server has no authentication: "
            "anyone who can reach the port could read the files it serves. Use the default "
            "(127.0.0.1) and connect from this machine, or pass --allow-remote if you really "
            "mean to serve other machines."
        )
    return (
        f"{PREFIX}: WARNING: serving on {host}, reachable from other machines, WITHOUT "
        "authentication: anyone who can reach the port can read what the tools show."
    )


def url_of(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}{MCP_PATH}"


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host``:``port`` (0: a free port); ``ServeError`` if it cannot."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except OSError as exc:
        raise ServeError(f"cannot resolve --host {host}: {exc}") from exc
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise ServeError(
            f"cannot listen on {host}:{port}: {exc.strerror or exc}. Pick another --port "
            "(0 picks a free one)."
        ) from exc
    return sock


def security(host: str) -> Any:
    """The SDK's DNS-rebinding protection for a loopback ``host``: only loopback names in
    ``Host`` and ``Origin``. None (off) for any other host, whose names are not known here."""
    from mcp.server.transport_security import TransportSecuritySettings

    if not is_loopback(host):
        return None
    names = ["127.0.0.1", "localhost", "[::1]"]
    shown = f"[{host}]" if ":" in host else host
    if shown not in names:
        names.append(shown)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[f"{name}:*" for name in names],
        allowed_origins=[f"http://{name}:*" for name in names],
    )


def build_app(tools: ToolServer, host: str) -> tuple[Any, Any]:
    """The Starlette app serving ``tools`` at ``/mcp``, and its SDK session manager (whose
    ``run()`` the app's lifespan would enter; ``serve`` enters it itself)."""
    server = tools.build()
    app = server.streamable_http_app(
        streamable_http_path=MCP_PATH, host=host, transport_security=security(host)
    )
    return app, server.session_manager


class _Server(uvicorn.Server):
    """uvicorn's server, saying when it listens, ending the MCP sessions before it waits for
    the connections to close, and leaving the signals to ``serve``."""

    def __init__(
        self,
        config: uvicorn.Config,
        on_started: Callable[[], None],
        sessions: contextlib.AsyncExitStack,
    ) -> None:
        super().__init__(config)
        self._on_started = on_started
        self._sessions = sessions

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started:
            self._on_started()

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        # A client's open event stream (the GET every session keeps) would hold its connection
        # until the grace period ran out; ending the sessions first ends those streams.
        await self._sessions.aclose()
        await super().shutdown(sockets)

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        # uvicorn's own capture re-raises the signal once it has stopped, so the process
        # would die of SIGTERM; ``serve``'s handlers stop it the same way and it exits 0.
        yield


async def serve(
    root: Path,
    host: str,
    port: int,
    *,
    allow_remote: bool = False,
    stderr: TextIO | None = None,
    budget: BudgetSettings | None = None,
) -> None:
    """Serve until SIGINT or SIGTERM (``ServeError`` if it cannot start)."""
    err = stderr or sys.stderr
    warning = check_host(host, allow_remote)
    tools = ToolServer(root, budget=budget)
    tools.report_problems(err)
    sock = bind(host, port)
    url = url_of(host, int(sock.getsockname()[1]))

    def started() -> None:
        if warning is not None:
            print(warning, file=err, flush=True)
        print(f"{PREFIX}: listening on {url}", file=err, flush=True)

    app, manager = build_app(tools, host)
    config = uvicorn.Config(
        app,
        log_level="warning",
        lifespan="off",  # the session manager runs here instead, so shutdown can end it first
        timeout_graceful_shutdown=GRACE_SECONDS,
        access_log=False,
    )
    sessions = contextlib.AsyncExitStack()
    await sessions.enter_async_context(manager.run())
    server = _Server(config, started, sessions)
    loop = asyncio.get_running_loop()

    def stop(signum: int) -> None:
        if server.should_exit:  # a second signal: do not wait any longer
            server.force_exit = True
        server.should_exit = True
        print(f"{PREFIX}: {signal.Signals(signum).name}, stopping", file=err, flush=True)

    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop, signum)
    try:
        await server.serve(sockets=[sock])
    finally:
        await sessions.aclose()  # when uvicorn stopped without its shutdown
        tools.spills.close()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(signum)
        sock.close()
    if not server.started:
        raise ServeError("the HTTP server did not start (see the messages above)")
    print(f"{PREFIX}: stopped", file=err, flush=True)


def run(
    root: Path,
    host: str,
    port: int,
    *,
    allow_remote: bool = False,
    budget: BudgetSettings | None = None,
) -> int:
    """Serve over HTTP until stopped: 0 after SIGINT or SIGTERM, 2 if it cannot start."""
    try:
        asyncio.run(serve(root, host, port, allow_remote=allow_remote, budget=budget))
    except ServeError as exc:
        print(f"{PREFIX}: {exc}", file=sys.stderr, flush=True)
        return 2
    return 0
