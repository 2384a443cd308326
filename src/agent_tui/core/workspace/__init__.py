"""The project the agent works in: its memory files (AGENTS.md), ignore files, glob patterns.

May import: state, text.
"""
