"""What a configured MCP server is: ``ServerSpec``, the merged ``McpConfig`` and its problems.

The values ``load`` builds from the ``.mcp.json`` files, and every other part of ``core.mcp``
reads: the constants of the format (file names, default timeouts, the characters of a server
name) and ``offers_roots``, which the entry (or its arguments) decides.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from agent_tui.core.mcp.config.files import PROJECT_FILE, USER_FILE
from agent_tui.core.mcp.config.oauth_entry import OAuthEntry

DEFAULT_TIMEOUT = 60.0
"""Seconds a call may go without a sign of life from its server (progress, log, output)."""
DEFAULT_MAX_TOTAL_TIMEOUT = 600.0
"""Seconds a call may take in all, however much the server says it is still working."""
DEFAULT_STARTUP_TIMEOUT = 15.0
SERVER_NAME = re.compile(r"^[A-Za-z0-9_-]+$")


@dataclass
class ServerSpec:
    """One configured server, expanded and checked. ``error`` is set when the entry is broken:
    such a server is listed but never started."""

    name: str
    transport: Literal["stdio", "http"] = "stdio"
    command: str = ""
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    oauth: OAuthEntry | None = None
    """How to sign in to an HTTP server (``oauth_entry``); None for stdio servers, and
    for HTTP servers with ``"oauth": false`` or their own ``Authorization`` header."""
    disabled: bool = False
    timeout: float = DEFAULT_TIMEOUT
    """The idle timeout of a call: it fails after this many seconds without progress, a log
    message or output from the server (``client.call_clock``)."""
    max_total_timeout: float = DEFAULT_MAX_TOTAL_TIMEOUT
    """The hard limit of a call: it fails after this many seconds, signs of life or not."""
    startup_timeout: float = DEFAULT_STARTUP_TIMEOUT
    start: Literal["eager", "lazy"] | None = None
    """When to start it (``client.start_mode``): its entry's ``"start"``; None: the settings'
    ``mcp.start`` decides."""
    roots: bool | None = None
    """Offer it the roots (``roots/list``: the workspace and ``mcp.roots``); ``false``: do
    not declare the roots capability to it. Unless the entry says ``"roots": true``, a stdio
    server started with a directory among its arguments gets none: a server that takes its
    directories as arguments may replace them with the roots (server-filesystem does), and
    the user limited it to those (``offers_roots``); None: that rule decides."""
    error: str | None = None
    source: Path | None = field(default=None, compare=False)
    warnings: list[str] = field(default_factory=list, compare=False)
    untrusted: bool = False
    """From the project's ``.mcp.json`` and not trusted by the user yet (``core.state.trust``):
    listed, never started."""

    def describe(self) -> str:
        """``npx -y pkg .`` or the URL: what the server is, in one line."""
        if self.transport == "http":
            return self.url
        return " ".join([self.command, *self.args]).strip()


@dataclass(frozen=True)
class ConfigProblem:
    path: Path
    message: str
    server: str | None = None
    unread: bool = False
    """The whole file could not be used (unreadable, not JSON, no ``mcpServers`` object):
    nothing in it was read this time."""
    kept: tuple[str, ...] = ()
    """For an ``unread`` file on a reload: the servers it configured at its last good read,
    kept as they were (running or not); empty when none was kept."""

    def __str__(self) -> str:
        where = f"{self.path}" + (f" (server {self.server!r})" if self.server else "")
        return f"{where}: {self.message}"


@dataclass
class McpConfig:
    servers: dict[str, ServerSpec] = field(default_factory=dict)
    problems: list[ConfigProblem] = field(default_factory=list)
    paths: list[Path] = field(default_factory=list)
    """The files read (existing or not), least specific first: the ones to watch."""


def offers_roots(spec: ServerSpec, cwd: Path) -> bool:
    """Whether the client declares the roots capability to the server of ``spec``: as its
    entry says, else yes, except to a stdio server given a directory among its arguments
    (relative ones are resolved from its ``cwd``, else ``cwd``). Such a server was limited to
    those directories by the user, and server-filesystem would replace them with the roots —
    the whole workspace and more."""
    if spec.roots is not None:
        return spec.roots
    if spec.transport != "stdio":
        return True
    base = Path(spec.cwd).expanduser() if spec.cwd else cwd
    if not base.is_absolute():
        base = cwd / base
    for arg in spec.args:
        if not arg or arg.startswith("-"):
            continue
        path = Path(arg).expanduser()
        try:
            if (path if path.is_absolute() else base / path).is_dir():
                return False
        except OSError:
            continue
    return True


__all__ = [
    "DEFAULT_MAX_TOTAL_TIMEOUT",
    "DEFAULT_STARTUP_TIMEOUT",
    "DEFAULT_TIMEOUT",
    "PROJECT_FILE",
    "SERVER_NAME",
    "USER_FILE",
    "ConfigProblem",
    "McpConfig",
    "ServerSpec",
    "offers_roots",
]
