"""The MCP configuration: ``.mcp.json`` files, what both sides of ``core.mcp`` read.

- ``spec``: ``ServerSpec`` (one configured server), ``McpConfig``, ``ConfigProblem``, the
  format's constants and ``offers_roots``;
- ``load``: the files read, merged and checked, ``${VAR}`` expanded, project servers trusted or
  not (``load_config``);
- ``server_names``: names that would share a tool prefix are refused;
- ``oauth_entry``: the ``"oauth"`` key of an HTTP server;
- ``edit``: adding and removing servers (``agent-tui mcp add/remove``).

May import the core's ``state`` (paths, trust, no-follow writes), ``permissions.mcp_names``,
``schema_errors`` and the atomic write of ``tools.builtin``; nothing else of ``core.mcp``.
"""
