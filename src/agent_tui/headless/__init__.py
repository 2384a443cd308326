"""Headless mode (``agent-tui -p``): a front end like the TUI, printing the core's events as
text, JSON or stream-JSON instead of painting them.

``run`` drives one prompt through the agent and maps the turn's end to an exit code; ``text``
renders the ``text`` format; ``commands`` resolves a slash command and reads piped stdin.
It sits beside ``agent_tui.ui``, not inside ``cli``: it consumes the same event stream the UI
does and is handed an assembled ``Agent`` (the command line builds it in
``agent_tui.cli.assemble``). It may import ``agent_tui.core`` only: never ``textual``/``rich``,
``agent_tui.ui`` or ``agent_tui.cli``; the core imports nothing from here.
"""
