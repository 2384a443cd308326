"""``agent-tui mcp login NAME`` and ``agent-tui mcp logout NAME``: OAuth sign-in for HTTP servers.

``login`` prints the authorization URL (for a terminal without a browser, over SSH: open it
anywhere that can reach this machine's 127.0.0.1), opens it in the browser unless
``--no-browser``, waits for the redirect (``--timeout`` seconds, default 300) and saves the
tokens (``core.mcp.auth.token_store``). ``logout`` deletes them. Exit 0 on success, 1 when the
sign-in failed, 2 for a server that is not configured or cannot sign in.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

from agent_tui.core.mcp.auth.oauth import LOGIN_TIMEOUT
from agent_tui.core.mcp.config.load import load_config
from agent_tui.core.mcp.config.spec import ServerSpec


def add_parsers(sub: Any) -> None:
    login = sub.add_parser("login", help="sign in to an HTTP server (OAuth); saves its tokens")
    login.add_argument("name")
    login.add_argument(
        "--no-browser", action="store_true", help="only print the URL to open (SSH, headless)"
    )
    login.add_argument(
        "--timeout", type=float, default=LOGIN_TIMEOUT, help="seconds to wait for the browser"
    )
    logout = sub.add_parser("logout", help="forget the saved sign-in of an HTTP server")
    logout.add_argument("name")


def run(args: argparse.Namespace, cwd: Path) -> int:
    spec = _spec(cwd, args.name)
    if isinstance(spec, str):
        print(f"agent-tui mcp: {spec}", file=sys.stderr)
        return 2
    if args.command == "logout":
        from agent_tui.core.mcp.auth.oauth import logout

        if logout(spec):
            print(f"signed out of {spec.name} (its saved tokens are deleted)")
        else:
            print(f"{spec.name} had no saved sign-in")
        return 0
    return asyncio.run(_login(spec, browser=not args.no_browser, timeout=args.timeout))


def _spec(cwd: Path, name: str) -> ServerSpec | str:
    config = load_config(cwd)
    spec = config.servers.get(name)
    if spec is None:
        known = ", ".join(config.servers) or "none"
        return f"no MCP server named {name!r} (configured: {known})"
    if spec.transport != "http":
        return f"{name} is a stdio server: sign-in (OAuth) is for HTTP servers"
    if spec.error:
        return f"{name} cannot be used: {spec.error}"
    if spec.oauth is None:
        return (
            f"sign-in is off for {name}: its entry has its own Authorization header or "
            '"oauth": false'
        )
    return spec


async def _login(spec: ServerSpec, *, browser: bool, timeout: float) -> int:
    from agent_tui.core.mcp.auth import oauth

    def show(url: str) -> None:
        what = "Opening your browser to sign in" if browser else "To sign in"
        print(f"{what} to {spec.name}; if it does not open, visit:\n  {url}", flush=True)

    try:
        result = await oauth.login(
            spec,
            on_url=show,
            open_browser=oauth.open_browser if browser else None,
            timeout=timeout,
        )
    except oauth.LoginError as exc:
        print(f"agent-tui mcp: {exc}", file=sys.stderr)
        return 1
    print(result.describe())
    return 0
