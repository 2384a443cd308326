"""MCP: external tools from MCP servers (``client``), and our own tools as a server (``server``).

- ``config``: the ``.mcp.json`` files — what a configured server is (``spec``), reading and
  merging them (``load``), server names that would clash (``server_names``), the ``oauth`` entry,
  ``mcp add/remove`` (``edit``); shared by both sides;
- ``client``: the manager of every configured server, its connections and their call paths,
  transports, tools in the registry, lazy servers and the tool cache, resources, roots, logs,
  elicitation, and the state the UI and ``mcp list`` show;
- ``auth``: OAuth sign-in to HTTP servers (the SDK's provider, a connection's auth, ``login``),
  and the token store;
- ``server``: ``agent-tui mcp serve``, the read-only built-ins over stdio or HTTP;
- ``log_levels``: the protocol's logging levels, which both sides use.

Imports go one way: ``client`` may import ``auth``, ``config`` and ``log_levels``; ``auth`` may
import ``config``; ``server`` may import ``log_levels`` (and the core's tools and permissions),
never ``client``; ``config`` imports none of them. This ``__init__`` imports nothing, and
importing the package never imports the ``mcp`` SDK (it costs ~0.5 s): a connection does, when
a server is configured and started.
"""
