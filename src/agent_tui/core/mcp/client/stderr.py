"""A server's stderr: a private temporary file the child writes to, read back as a tail.

The SDK's ``stdio_client`` writes the child's stderr to the real terminal unless told
otherwise, which would draw over the TUI; it gets this file instead. The file is anonymous
(deleted on close), opened in append mode so ``trim`` can cut it while the child keeps
writing, and trimmed when a noisy server makes it grow past ``MAX_BYTES``.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from typing import TextIO

MAX_BYTES = 4 << 20
KEEP_BYTES = 64 << 10
TAIL_BYTES = 16 << 10
LINE_CHARS = 400


class StderrLog:
    def __init__(self) -> None:
        self.file: TextIO = tempfile.TemporaryFile("a+", encoding="utf-8", errors="replace")  # noqa: SIM115
        self.trimmed = 0
        """Bytes cut from the front by ``trim``."""

    def size(self) -> int:
        try:
            return os.fstat(self.file.fileno()).st_size
        except (OSError, ValueError):
            return 0

    def tail(self, lines: int = 20) -> list[str]:
        """The last ``lines`` non-empty lines (each cut to a sane length)."""
        try:
            fd = self.file.fileno()
            size = os.fstat(fd).st_size
            start = max(0, size - TAIL_BYTES)
            data = os.pread(fd, size - start, start)
        except (OSError, ValueError):
            return []
        text = data.decode("utf-8", "replace")
        rows = [r for r in text.splitlines() if r.strip()]
        if start > 0 and rows:
            rows = rows[1:]  # the first one is probably cut
        return [r if len(r) <= LINE_CHARS else r[: LINE_CHARS - 1] + "…" for r in rows[-lines:]]

    def trim(self) -> None:
        """Keep only the last ``KEEP_BYTES`` when the file has grown past ``MAX_BYTES``."""
        size = self.size()
        if size <= MAX_BYTES:
            return
        try:
            fd = self.file.fileno()
            keep = os.pread(fd, KEEP_BYTES, size - KEEP_BYTES)
            os.ftruncate(fd, 0)
            os.write(fd, b"[... earlier output trimmed ...]\n" + keep)
            self.trimmed += size - len(keep)
        except (OSError, ValueError):
            return

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.file.close()
