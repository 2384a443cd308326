"""ACP mode (``agent-tui acp``): a front end like the TUI and headless mode, speaking the Agent
Client Protocol (v1, JSON-RPC over stdio) to an editor instead of painting the core's events.

``server`` answers the protocol's requests (sessions, prompts, cancel) with the assembled core;
``updates`` turns a turn's events into ``session/update`` notifications; ``permission`` asks
the client about the calls our pipeline asks about; ``prompt`` reads the content blocks of a
prompt; ``history`` lists saved sessions and tells one again (its edits' diffs from the
checkpoints: ``edit_history``); ``editor_files`` lets the file tools read and write through
the client's ``fs`` methods; ``terminals`` shows shell calls as the client's terminals
(``follow`` is the display program they run). It may import ``agent_tui.core`` and the
``acp`` SDK only: never ``textual``/``rich``, ``agent_tui.ui``, ``agent_tui.headless`` or
``agent_tui.cli`` (the command line builds the core and hands it in); nothing imports it but
``cli.acp``, so only that command loads the SDK.
"""
