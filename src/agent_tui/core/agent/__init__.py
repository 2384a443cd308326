"""The agent and its collaborators. ``agent.Agent`` is the facade every front end uses; it
composes the run control (``control``), the conversation state (``conversation_state``), the
session file's changes (``session_switch``), the turn loop (``turn``, its phases ending in a
typed next step, ``steps``; one model request streamed, ``model_stream``; a custom command's
model for its turn, ``command_turn``), compaction (``compacting``) and the checkpoints and
rewind (``rewinding``). Also here: the inbox of messages typed during a turn, the system
prompt, the starter AGENTS.md a model writes.

May import: everything else in the core (it is the top: only ``subagents``, which runs agents,
imports it). Inside, the collaborators import ``control`` and ``conversation_state`` and never
``agent``: each reads the agent through a protocol of its public members.
"""
