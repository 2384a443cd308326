"""Text utilities without state: terminal escapes, UTF-8 that always encodes, fuzzy matching,
completion, one-line summaries of tool calls and results.

May import: nothing else of agent-tui (a helper that needs a call or a message lives with it:
``calls.call_summary``).
"""
