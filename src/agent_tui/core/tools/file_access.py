"""Where the file tools get a text file's content and put a new one: the local disk, or an
editor that holds the files open (``agent-tui acp``, through the client's ``fs`` methods).

``ToolContext.files`` carries one. The default, ``LOCAL_FILES``, is the disk: the tools then
use their own byte-exact, symlink-safe reads and writes (``files.safe_open``,
``builtin.atomic``) and never call it. An editor's (``editor`` true) is asked for the text
instead — what its buffer holds, saved or not — and told the new text, which it shows. Only
the content moves: everything else the tools check stays where it is, on the path the
permission decision judged (the path is resolved, refused when outside the workspace or
protected, opened without following a link, read before an edit, compared with what was
read) before the editor hears of the file; and the checkpoint keeps the text the editor held.

The methods are blocking (the tools call them from their worker threads) and raise
``AccessFailed`` (an ``OSError``, so a tool's error handling reports it) when the editor
refuses, the file is gone, or the wait is cancelled. Nothing here knows ACP.
"""

from __future__ import annotations

import errno
from pathlib import Path
from typing import Protocol


class AccessFailed(OSError):
    """The editor could not read or write a file; ``strerror`` says why, in a sentence."""

    def __init__(self, why: str) -> None:
        super().__init__(errno.EIO, why)


class FileAccess(Protocol):
    """A text file's content, from wherever the session's files are open."""

    @property
    def editor(self) -> bool:
        """True: an editor holds the files (ask it); False: the disk (the tools read it)."""

    def read_text(self, path: Path) -> str:
        """``path``'s whole text as the editor holds it; ``AccessFailed`` when it cannot."""

    def write_text(self, path: Path, text: str) -> None:
        """Give ``path`` the content ``text``; ``AccessFailed`` when that failed (nothing
        was written: the editor answers only once it wrote or refused)."""


class _LocalFiles:
    """The disk. The tools do their own IO for it (see the module): these are for callers
    that have no better way, and read and write the plain way."""

    editor = False

    def read_text(self, path: Path) -> str:
        return path.read_text(encoding="utf-8")

    def write_text(self, path: Path, text: str) -> None:
        path.write_text(text, encoding="utf-8")


LOCAL_FILES: FileAccess = _LocalFiles()
"""The default: the files are on the local disk."""
