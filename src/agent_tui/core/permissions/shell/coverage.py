"""Did the parser read every character? The check that catches tree-sitter and bash disagreeing.

tree-sitter-bash recovers silently from some input that bash reads differently: it skips
``$(evil)`` in a heredoc body after a parsed expansion, drops an escaped blank (``\\ x``), takes
a carriage return for a blank, splits a word at a backslash-newline that bash removes
(``r\\<newline>m`` is ``rm`` to bash). Every byte of the command must belong to a token of
the tree, or be a blank between tokens; text inside a string or an unquoted heredoc body that
no token covers is content, and must hold no expansion bash would still run. Anything else
makes the command opaque.
"""

from __future__ import annotations

import re
from typing import Any

CONTENT = frozenset({"string", "translated_string", "heredoc_body"})
"""Nodes whose text between their children is literal content, not skipped syntax."""
_BLANKS = frozenset(b" \t\n")
_EXPANSION = re.compile(rb"(?<!\\)(?:`|\$\(|\$\{|\$\[|\$[A-Za-z_])")


def skipped(root: Any, source: bytes, limit: int) -> str | None:
    """What the parser left unread, in words, or None. ``limit``: nodes visited at most
    (past it the command is opaque for its size anyway)."""
    if b"\r" in source:
        return "a carriage return (bash reads it as part of a word, the parser as a blank)"
    stack: list[tuple[Any, bool]] = [(root, False)]
    last = 0
    seen = 0
    while stack:
        node, in_content = stack.pop()
        if isinstance(node, _End):  # a content node's text runs to here: all of it read
            last = max(last, node.end_byte)
            continue
        seen += 1
        if seen > limit:
            return None
        if in_content:  # the content before this child was checked by its parent
            last = max(last, node.start_byte)
        children = node.children
        if not children:
            problem = _gap(source[last : node.start_byte], source, last)
            if problem is not None:
                return problem
            last = max(last, node.end_byte)
            continue
        content = node.type in CONTENT
        if content:  # its text between children is content: no expansion may hide there
            position = node.start_byte
            for child in children:
                piece = source[position : child.start_byte]
                if _EXPANSION.search(piece):
                    return f"an expansion the parser left unread ({piece[:40]!r})"
                position = child.end_byte
            piece = source[position : node.end_byte]
            if _EXPANSION.search(piece):
                return f"an expansion the parser left unread ({piece[:40]!r})"
        for child in reversed(children):
            stack.append((child, content))
        if content:  # under its children, so it pops after them
            stack.insert(len(stack) - len(children), (_End(node.end_byte), False))
    return _gap(source[last:], source, last)


class _End:
    """A marker pushed after a content node's children: its content runs to ``end_byte``."""

    children: tuple[()] = ()
    type = "end"

    def __init__(self, end: int) -> None:
        self.start_byte = self.end_byte = end


def _gap(gap: bytes, source: bytes, start: int) -> str | None:
    if not gap:
        return None
    index = 0
    while index < len(gap):
        byte = gap[index]
        if byte in _BLANKS:
            index += 1
            continue
        if gap[index : index + 2] == b"\\\n":
            before = source[start + index - 1 : start + index] if start + index else b" "
            after = gap[index + 2 : index + 3] or source[start + index + 2 : start + index + 3]
            if before and before[0] not in _BLANKS and after and after[0] not in _BLANKS:
                return (
                    "a backslash-newline inside a word (bash joins the word, the parser splits it)"
                )
            index += 2
            continue
        text = gap[index : index + 30].decode("utf-8", "replace")
        return f"text the parser skipped ({text!r})"
    return None
