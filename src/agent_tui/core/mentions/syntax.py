"""How a mention is written in a prompt: ``@path``, ``@"path with spaces"``, ``@dir/``, and
``@server:uri`` for an MCP resource (``core.mentions.resources``).

An ``@`` starts a mention only at the start of the prompt or after whitespace: the ``@`` of
``me@example.com`` or of ``a@b`` is text. An unquoted mention ends at whitespace; punctuation
that ends a sentence (``see @src/app.py.``) is tried without it when the path with it does not
exist (``expand``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

TOKEN = re.compile(r'(?<!\S)@(?:"([^"\n]+)"|([^\s"]+))')
"""A mention as typed: group 1 the quoted path, group 2 the bare one."""
OPEN = re.compile(r'(?<!\S)@("[^"\n]*|[^\s"]*)\Z')
"""The mention being typed at the end of the text before the cursor."""
TRAILING = ",.;:!?)]}'"
"""Characters a sentence puts after a mention."""
RESOURCE = re.compile(r"([A-Za-z0-9_.-]+):(\S+)\Z")
"""``server:uri`` (where resources are known: ``MentionResources``)."""


@dataclass(frozen=True)
class Token:
    start: int
    end: int
    path: str
    quoted: bool

    def candidates(self) -> list[tuple[str, int]]:
        """The paths it may name, with where each ends: itself, then (bare) without the
        sentence's punctuation after it, one character at a time."""
        found = [(self.path, self.end)]
        if self.quoted:
            return found
        path, end = self.path, self.end
        while len(path) > 1 and path[-1] in TRAILING:
            path, end = path[:-1], end - 1
            found.append((path, end))
        return found


def tokens(text: str) -> list[Token]:
    """The ``@`` tokens of ``text``, in order."""
    out = []
    for match in TOKEN.finditer(text):
        quoted = match.group(1) is not None
        path = match.group(1) if quoted else match.group(2)
        out.append(Token(match.start(), match.end(), path, quoted))
    return out


@dataclass(frozen=True)
class Typing:
    """The mention the cursor is in: ``text[start:end]`` is ``@`` and what follows."""

    start: int
    end: int
    query: str


def typing_at(text: str, cursor: int) -> Typing | None:
    """The mention being typed at ``cursor``, or None (no ``@`` token there)."""
    match = OPEN.search(text, 0, cursor)
    if match is None:
        return None
    typed = match.group(1)
    end = cursor
    if typed.startswith('"'):
        close = text.find('"', cursor)
        newline = text.find("\n", cursor)
        if close >= 0 and (newline < 0 or close < newline):
            end = close + 1
        return Typing(match.start(), end, typed[1:])
    while end < len(text) and not text[end].isspace():
        end += 1
    return Typing(match.start(), end, typed)


def written(path: str) -> str:
    """``path`` as a mention: ``@path``, quoted when it holds whitespace."""
    if any(char.isspace() for char in path) or '"' in path:
        return f'@"{path}"'
    return f"@{path}"
