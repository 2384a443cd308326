"""agent-tui as an MCP server (``agent-tui mcp serve``): the read-only built-ins for others.

- ``tool_server``: ``ToolServer``, the tools (read_file, list_dir, glob, grep, ``search_files``)
  under the permission rules, over stdio;
- ``http``: the same over streamable HTTP (loopback by default, host checks);
- ``search_files``: the one tool only the server offers;
- ``spills``: the output budget (a result too long to send is saved, an excerpt sent) and
  the saved outputs as resources (``spill://<name>``, paged).

May import ``core.mcp.log_levels``, the core's tools and permissions, and the output budget's
store and windows (``core.budget``, ``core.browse``); never
``core.mcp.client``, ``core.mcp.auth`` or ``core.mcp.config``.
"""
