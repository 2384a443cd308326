"""The conversation: session files (append-only JSONL, one writer, sealed: ``session``,
``session_read``, ``session_store``, ``session_seal``, ``session_lock``, ``repair``), replay as
events, compaction, the context window and model limits, rewinding a session; the session as
Claude Code's transcript for hooks (``claude_export``).

May import: events, calls, transcript, plan, state, text, workspace, budget, checkpoints, and
``core.claude``'s transcript lines. Never
the agent loop, tools or providers.
"""
