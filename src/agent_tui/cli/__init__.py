"""The ``agent-tui`` command line: every entry a user types, and the wiring behind it.

``main`` parses the top-level options and dispatches: the TUI (``agent_tui.ui``), a headless
run (``agent_tui.headless``), or a subcommand module (``mcp`` with ``mcp_auth``, ``trust``,
``permissions``, ``init``, ``sandbox``); ``parser`` holds the strict argparse parser they share,
``options`` the options the TUI's command line and ``acp`` share (model, rules, mode, turns).
``assemble`` builds the core a run needs from the parsed options (provider, session, settings,
permissions, tools, hooks, MCP, the agent): it lives here because it turns command-line
options into a core and only ``main`` calls it, which keeps both front ends free of option
parsing and the composition in one place.

This package is the top of the import graph: it may import ``agent_tui.core``,
``agent_tui.headless`` and ``agent_tui.ui`` (the UI lazily, so a headless run never loads
Textual); nothing else in ``agent_tui`` imports it. The console script is
``agent_tui.cli.main:main``.
"""
