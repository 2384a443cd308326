"""agent-tui as an MCP server (``agent-tui mcp serve``): the read-only built-ins for others.

- ``tool_server``: ``ToolServer``, the tools (read_file, list_dir, glob, grep, ``search_files``)
  under the permission rules, over stdio;
- ``http``: the same over streamable HTTP (loopback by default, host checks);
- ``search_files``: the one tool only the server offers.

May import ``core.mcp.log_levels`` and the core's tools and permissions; never
``core.mcp.client``, ``core.mcp.auth`` or ``core.mcp.config``.
"""
