"""The agent loop and its collaborators: the turn (model request after model request), compaction
and rewind as the agent runs them, the inbox of messages typed during a turn, the system prompt,
the starter AGENTS.md a model writes.

May import: everything else in the core (it is the top: only ``subagents``, which runs agents,
imports it).
"""
