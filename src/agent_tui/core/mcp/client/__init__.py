"""The MCP client: agent-tui using the tools, prompts and resources of configured servers.

- the servers: ``manager`` (``McpManager``: every server's life cycle, its tools routed),
  ``connection`` (one server's task around the SDK client) and ``call_paths`` (its requests),
  ``transport`` and ``stderr`` (stdio and HTTP), ``http_link`` (an HTTP server found gone at
  once), ``backoff`` (reconnecting one that went away), ``failures`` (what a failure says);
- what they are in: ``state`` (a connection's ``Status``, the ``ServerState`` snapshot),
  ``disabled`` (servers disabled, and why), ``overview`` (what the panel and ``mcp list`` show);
- their tools: ``adapter`` (a remote tool as a registry entry, its results), ``naming``
  (``mcp__<server>__<tool>``), ``registered_tools``, ``tasks``;
- lazy start: ``lazy_servers``, ``start_mode``, ``tool_cache``;
- resources, roots and logs: ``resources`` (one server's side), ``resource_hub`` (all of them,
  and the model's two tools), ``resource_mentions``, ``resource_preview``, ``roots``,
  ``server_log``;
- ``elicitation`` and ``elicitation_form``: a server asking the user for input;
- ``watch`` (the configuration files), ``conformance_client`` (the conformance suite's client).

May import ``core.mcp.config``, ``core.mcp.auth``, ``core.mcp.log_levels`` and the core's
``tools``, ``permissions``, ``settings``, ``state``, ``disclosure``, ``budget``, ``text`` and
``commands.mcp_prompts``; never ``core.mcp.server``, nor the UI.
"""
