"""A custom command's arguments, put into its body: ``$ARGUMENTS`` and the numbered ones.

Two dialects, by where the file comes from:

- **Claude Code's** (``.claude/commands/``, ``~/.claude/commands/``), as Claude Code documents
  and does it: ``$ARGUMENTS`` is everything typed after the command, ``$ARGUMENTS[N]`` and its
  shorthand ``$N`` the N-th word **counting from 0** (``$0`` is the first word, ``$1`` the
  second). The digits after ``$`` are read whole: ``$20`` is word 20, never ``$2`` then
  ``0``. A number with no such word stays as written, so money in prose (``$20``, ``$1.5M``
  when fewer words are given) survives.
- **Ours** (``.agent-tui/commands/``, the user's ``commands/``): ``$ARGUMENTS``, and ``$1`` …
  ``$9`` the words counting from 1; a missing word is empty. ``$0`` and ``$`` followed by two
  or more digits (``$20``, ``$100``) are text, never a placeholder.

In both, a backslash before a placeholder keeps it literal (``\\$1`` is ``$1``), words are
split shell-like (quotes group words), the body is scanned once (an argument that contains
``$1`` is not substituted again), and a body in which no placeholder was filled gets the
arguments appended as ``ARGUMENTS: …`` (as Claude Code does).
"""

from __future__ import annotations

import re
import shlex

CLAUDE_SOURCES = frozenset({"claude", "~/.claude"})
"""Locations whose files follow Claude Code's dialect (``custom.locations``)."""
PLACEHOLDER = re.compile(r"(\\?)\$(?:ARGUMENTS\[(\d+)\]|(ARGUMENTS)|(\d+))")


def words(arguments: str) -> list[str]:
    """The words of ``arguments``, shell-like; an unclosed quote: plain words."""
    try:
        return shlex.split(arguments)
    except ValueError:
        return arguments.split()


def substitute(body: str, arguments: str, *, claude: bool) -> str:
    """``body`` with the placeholders filled from ``arguments`` (see the module docstring)."""
    arguments = arguments.strip()
    split = words(arguments)
    filled = False

    def one(match: re.Match[str]) -> str:
        nonlocal filled
        escaped, indexed, everything, number = match.groups()
        text = match.group(0)
        if escaped:
            return text[1:]
        if everything:
            filled = True
            return arguments
        if indexed is not None:
            if not claude:
                return text
            return _word(split, int(indexed), text)
        if claude:
            return _word(split, int(number), text)
        if len(number) != 1 or number == "0":
            return text  # $0, $20, $100: text (money), not a placeholder
        filled = True
        index = int(number) - 1
        return split[index] if index < len(split) else ""

    def _word(found: list[str], index: int, text: str) -> str:
        nonlocal filled
        if index >= len(found):
            return text
        filled = True
        return found[index]

    result = PLACEHOLDER.sub(one, body)
    if filled or not arguments or _mentions_placeholder(body, claude):
        return result
    return f"{result}\n\nARGUMENTS: {arguments}"


def _mentions_placeholder(body: str, claude: bool) -> bool:
    """Whether the body names ``$ARGUMENTS`` or a numbered word (even one not given): such a
    body placed the arguments itself, so nothing is appended."""
    for match in PLACEHOLDER.finditer(body):
        escaped, indexed, everything, number = match.groups()
        if escaped:
            continue
        if everything or (claude and indexed is not None):
            return True
        if number is not None and not claude and len(number) == 1 and number != "0":
            return True
    return False
