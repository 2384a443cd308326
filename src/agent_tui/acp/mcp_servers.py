"""The MCP servers an ACP client passes with ``session/new`` / ``session/load``, as entries of
an ``.mcp.json`` file.

The editor's own servers are the user's: the command line writes them to a file of the
session's (``cli.acp``) that the MCP manager reads between the user's configuration and the
project's ``.mcp.json``, so they are started and called exactly as configured servers are
(their tools named ``mcp__<name>__<tool>``, asked about under the same rules). The project's
file stays behind the trust gate as always. Transports: stdio and streamable HTTP; an SSE or
ACP-transport server is left out and said so (``entries`` returns the notes).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from acp.schema import HttpMcpServer, McpServerStdio


def entries(servers: Sequence[Any]) -> tuple[dict[str, Any], list[str]]:
    """``mcpServers`` entries for ``servers``, and a note for each one left out."""
    out: dict[str, Any] = {}
    notes: list[str] = []
    for server in servers:
        if isinstance(server, McpServerStdio):
            out[server.name] = {
                "type": "stdio",
                "command": server.command,
                "args": list(server.args),
                "env": {variable.name: variable.value for variable in server.env or []},
            }
        elif isinstance(server, HttpMcpServer):
            out[server.name] = {
                "type": "http",
                "url": server.url,
                "headers": {header.name: header.value for header in server.headers or []},
            }
        else:
            kind = getattr(server, "type", type(server).__name__)
            notes.append(
                f"MCP server {getattr(server, 'name', '?')!r} left out: the {kind} transport "
                "is not supported (stdio and http are)"
            )
    return out, notes
