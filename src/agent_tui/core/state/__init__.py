"""The agent's own state: where it lives (paths), model specs, project trust, seals, no-follow
writes, once-only notices, the log file. (``core.settings``, which gathers every subsystem's
configuration, stays above the packages.)

May import: nothing else of agent-tui (the bottom: everything may import it).
"""
