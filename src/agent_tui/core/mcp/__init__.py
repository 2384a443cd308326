"""MCP: external tools from MCP servers (client manager), and our own tools as a server.

- ``config``: ``.mcp.json`` files, merged and checked, ``${VAR}`` expansion;
- ``naming``: ``mcp__<server>__<tool>`` names, safe, unique, at most 64 characters;
- ``adapter``: a remote tool as a registry entry, its results as what the model reads;
- ``connection``: one server's long-lived task around the SDK client;
- ``manager``: all servers in parallel, their tools in the registry, status for the UI;
- ``server``: ``agent-tui mcp serve``, the read-only built-ins over stdio.

Importing this package never imports the ``mcp`` SDK (it costs ~0.5 s): a connection does,
when a server is configured and started.
"""

from agent_tui.core.mcp.adapter import ToolInfo
from agent_tui.core.mcp.config import ConfigProblem, McpConfig, ServerSpec, load_config
from agent_tui.core.mcp.manager import McpManager
from agent_tui.core.mcp.state import ServerState

__all__ = [
    "ConfigProblem",
    "McpConfig",
    "McpManager",
    "ServerSpec",
    "ServerState",
    "ToolInfo",
    "load_config",
]
