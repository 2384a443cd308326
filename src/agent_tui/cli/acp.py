"""``agent-tui acp``: agent-tui as an ACP agent (Agent Client Protocol v1) on stdin/stdout.

An editor (Zed, JetBrains, Neovim, Emacs, Toad) starts it and speaks JSON-RPC over its stdio;
each session it opens gets the core a TUI run would (``assemble``: the same model, settings,
permission rules, hooks, MCP servers, sandbox), for the cwd the editor names. The options are
the TUI's that make sense here: the model, allow and deny rules, the permission mode, max turns.

stdout is the protocol's alone: the real stdout is kept for it and file descriptor 1 then
points at stderr, so nothing else the process (or a child it starts) writes there can break
the stream. The SDK (``agent-client-protocol``) is imported here only: the TUI never pays for
it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from agent_tui.cli.options import add_max_turns_option, add_model_option, add_rule_options
from agent_tui.cli.parser import StrictParser

if TYPE_CHECKING:
    from acp.interfaces import Agent

    from agent_tui.acp.server import Opened
    from agent_tui.core.conversation.session import SessionLog


def build_parser() -> argparse.ArgumentParser:
    parser = StrictParser(
        prog="agent-tui acp",
        description="Run agent-tui as an ACP agent (Agent Client Protocol v1) over stdin and "
        "stdout, for editors: Zed, JetBrains, Neovim, Emacs, Toad. The editor starts it; each "
        "session works in the directory the editor names, with the model, rules, hooks and "
        "MCP servers a TUI run there would have.",
    )
    add_model_option(parser)
    add_rule_options(parser)
    add_max_turns_option(parser)
    parser.add_argument(
        "--debug", action="store_true", help="write more to the log file (DEBUG instead of INFO)"
    )
    return parser


def _namespace(
    args: argparse.Namespace,
    cwd: Path,
    resume: str | None,
    mcp_config: Path | None,
    fork: bool = False,
) -> argparse.Namespace:
    """The options ``assemble`` reads, as an interactive run's (asks are answered: by the
    client), resuming ``resume`` when given (``fork``: in a new session forked from it, as
    ``--fork-session``); ``mcp_config``: the client's MCP servers."""
    return argparse.Namespace(
        headless=None,
        model=args.model,
        allow=args.allow,
        deny=args.deny,
        permission_mode=args.permission_mode,
        max_turns=args.max_turns,
        continue_=False,
        resume=resume,
        fork_session=fork,
        cwd=cwd,
        debug=args.debug,
        mcp_config=mcp_config,
        acp=True,
    )


def _servers_file(servers: dict[str, Any]) -> Path | None:
    """The client's MCP servers in a file of their own (private: headers may hold tokens),
    None when there are none (blocking)."""
    if not servers:
        return None
    from agent_tui.core.state.paths import data_dir

    where = data_dir() / "acp"
    where.mkdir(parents=True, exist_ok=True, mode=0o700)
    handle, name = tempfile.mkstemp(prefix="client-", suffix=".mcp.json", dir=where)
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        json.dump({"mcpServers": servers}, out)
    return Path(name)


async def _open(
    args: argparse.Namespace,
    cwd: Path,
    resume: str | None,
    servers: dict[str, Any],
    fork: bool = False,
) -> Opened:
    from agent_tui.acp.server import Opened, StartFailed
    from agent_tui.cli.assemble import ModelUnusable, SetupFailed, assemble
    from agent_tui.core.conversation.session import SessionDoubted
    from agent_tui.core.conversation.session_store import SessionStore

    if resume is not None:
        try:
            found = await asyncio.to_thread(SessionStore().find, resume)
        except SessionDoubted as doubted:
            raise StartFailed(str(doubted), "invalid") from None
        if found is None or found.id != resume:  # an id, whole: not a prefix, not a path
            raise StartFailed(f"no saved session {resume!r}", "not_found")
        holder = None if fork else await asyncio.to_thread(_holder, found)
        if holder is not None:  # refused before assemble would fork it (a copy left behind)
            raise StartFailed(
                f"session {resume} is open in another agent-tui ({holder}); close it there",
                "in_use",
            )
    passed = await asyncio.to_thread(_servers_file, servers)
    files = [passed] if passed is not None else []
    try:
        core = await asyncio.to_thread(assemble, _namespace(args, cwd, resume, passed, fork), cwd)
    except SetupFailed as exc:
        for path in files:
            path.unlink(missing_ok=True)
        if isinstance(exc, ModelUnusable):
            raise StartFailed(exc.message, "auth") from None
        raise StartFailed(exc.message, "invalid") from None
    return Opened(core.agent, core.start, files)


def _holder(session: SessionLog) -> str | None:
    """Who holds ``session``'s lock (None: nobody; it is left unheld). Blocking."""
    holder = session.claim()
    if holder is None:
        session.release()
    return holder


def _model_problem(args: argparse.Namespace) -> str | None:
    from agent_tui.core.providers.base import ProviderError
    from agent_tui.core.providers.spec import make_provider

    try:
        provider = make_provider(args.model, cwd=Path.cwd())
    except ProviderError as exc:
        return str(exc)
    asyncio.get_running_loop().create_task(provider.aclose())
    return None


async def _serve(args: argparse.Namespace, protocol_out: int) -> int:
    from acp import run_agent

    from agent_tui.acp.server import AcpServer

    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=50 * 1024 * 1024)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, os.fdopen(protocol_out, "wb", buffering=0)
    )
    writer = asyncio.StreamWriter(transport, protocol, None, loop)

    async def open_session(
        cwd: Path, resume: str | None, servers: dict[str, Any], fork: bool
    ) -> Opened:
        return await _open(args, cwd, resume, servers, fork)

    server = AcpServer(open_session, lambda: _model_problem(args))
    try:
        # the SDK's Agent protocol lists every method; the router answers "method not found"
        # for those a server does not define (config options). Close, fork and resume are
        # "unstable" in the SDK: its router answers them only with the flag
        await run_agent(cast("Agent", server), writer, reader, use_unstable_protocol=True)
    finally:
        await server.aclose()
    return 0


def main(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(list(argv))
    if args.debug:
        from agent_tui.core.state import logfile

        logfile.start(debug=True)
    sys.stdout.flush()
    protocol_out = os.dup(sys.stdout.fileno())  # the protocol's own stdout
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # anything else printed: stderr
    sys.stdout = sys.stderr
    try:
        return asyncio.run(_serve(args, protocol_out))
    except KeyboardInterrupt:
        return 130
