"""Claude Code compatibility: what a Claude Code setup means here.

A user's ``.claude/`` files (settings, hooks, permission rules, commands, agents, skills) and the
hooks written for Claude Code speak Claude Code's vocabulary: its tool names (``Bash``, ``Read``,
``Edit``…) and its input field names (``file_path``, ``command``…). ``names`` is the one
translation between that vocabulary and ours, both ways; the readers of Claude Code's files and
the hook runner use it, so a name is mapped in one place. ``settings`` finds and reads Claude
Code's settings files (each file's JSON as written, ``hooks`` untouched; the keys nothing here
reads); ``rules`` translates a rule string into our rules (never looser than it says);
``permissions`` turns the files' ``permissions`` into our permission config, gated by trust,
and combines them with our own files (ours win); ``transcript`` writes our messages as lines
of Claude Code's transcript (what its hooks read at ``transcript_path``); ``env`` reads the
files' ``env`` into the variables the session's commands and hooks get (a project's behind
trust, and never a name that decides which code runs).

May import: the core's vocabulary (``core.permissions``' rule types, ``core.settings``,
``core.state``, ``core.text``, ``core.transcript``'s messages, and ``core.sandbox``'s
environment rules); nothing that runs tools, the agent or the UI. ``names`` imports nothing of
agent-tui: it is a table.
"""
