"""``@path`` imports in memory files, as Claude Code reads them in ``CLAUDE.md``.

A memory file may name other files to load with it: ``See @README.md`` or a line
``- @~/.claude/my-project-instructions.md``. The rules are Claude Code's:

- an import is ``@`` at the start of a line or after white space, then the path (a ``\\ ``
  escapes a space); ``@`` inside a word (``me@example.com``) is not one;
- a relative path is relative to the file that holds the import, ``~/`` is the home
  directory, an absolute path is itself;
- nothing inside a fenced code block (```` ``` ```` or ``~~~``), an indented code block, or an
  inline code span is an import;
- imports may import in turn, at most ``MAX_DEPTH`` levels deep; a file already loaded is not
  loaded again (a cycle stops there).

What may be imported is ours (``core.workspace.memory`` applies it): never agent-tui's own state
(its data, cache and log directories; for a project's file, its config directory too), and a
project's file imports only files inside the repository, as its memory symlinks may only point
inside it. A reference that names no file is most often not meant as one (``@someone``, the npm
scope ``@types/node``), so a missing target is said only when it names a Markdown or text file.

This module finds and resolves the references; reading them is ``memory``'s.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

MAX_DEPTH = 5
"""Levels of imports followed below a memory file (Claude Code's limit)."""
MAX_IMPORTS = 50
"""Imported files loaded in one session start (or one nested load); the rest are said."""
TRAILING = ".,;:!?)]}'\""
"""Punctuation after a reference that ends its sentence (``see @a.md.``): dropped when the
reference with it names no file."""
DOC_SUFFIXES = frozenset({".md", ".markdown", ".mdx", ".mdc", ".txt"})


@functools.cache
def _syntax() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """The expressions, compiled by the first file read (a start without memory files, most
    headless runs, compiles none: issue 45)."""
    return (
        re.compile(r"(?:^|(?<=\s))@((?:[^\s\\]|\\ )+)"),  # a reference
        re.compile(r"^ {0,3}(`{3,}|~{3,})"),  # a fence
        re.compile(r"(`+)(?:(?!\1).)+?\1"),  # a code span
        re.compile(r"^\s*(?:[-*+]|\d+[.)])\s"),  # a list item
    )


def references(text: str) -> list[str]:
    """The import references of ``text`` in order (each once), outside code."""
    reference, fence_line, span, list_item = _syntax()
    found: list[str] = []
    fence: str | None = None
    previous_blank = True
    in_list = False
    indented_code = False
    for line in text.splitlines():
        if fence is not None:
            stripped = line.strip()
            if stripped.startswith(fence) and set(stripped) == {fence[0]}:
                fence = None
            continue
        opening = fence_line.match(line)
        if opening:
            fence = opening.group(1)
            continue
        blank = not line.strip()
        indented = line.startswith(("    ", "\t"))
        indented_code = indented and not blank and not in_list and (previous_blank or indented_code)
        if not blank and not indented:
            in_list = bool(list_item.match(line))
        previous_blank = blank
        if indented_code:
            continue
        for match in reference.finditer(span.sub(" ", line)):
            ref = match.group(1).replace("\\ ", " ")
            if ref not in found:
                found.append(ref)
    return found


def candidates(ref: str, base: Path) -> list[Path]:
    """The paths ``ref`` (found in a file in directory ``base``) may name, the literal one
    first, then without the punctuation that may end a sentence."""
    out: list[Path] = []
    for text in dict.fromkeys((ref, ref.rstrip(TRAILING))):
        if not text:
            continue
        if text.startswith("~/") or text == "~":
            path = Path(text).expanduser()
        else:
            path = Path(text)
            if not path.is_absolute():
                path = base / path
        out.append(path)
    return out


def worth_saying_missing(ref: str) -> bool:
    """Whether a reference that names no file was most likely meant as an import."""
    return Path(ref.rstrip(TRAILING)).suffix.lower() in DOC_SUFFIXES
