"""The exact bytes of a tool's output, for a spill to save instead of the text the model reads.

A tool whose text is made *from* bytes (run_shell: a command's output decoded, escape codes
stripped, its exit code appended) hands those bytes over as ``ToolOutput.raw``: a spill then
holds exactly what the command wrote — invalid UTF-8, a final ``\\r\\n``, no footer — while
the model still reads the text. The bytes stay where the tool kept them (in memory, or in its
spooled temporary file: a 1 GiB output is not copied) and are read once, in chunks, when the
budget spills them; the budget closes them once it has decided the result's fate.
"""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Iterator
from typing import IO

CHUNK_BYTES = 1 << 20


class RawOutput:
    """Bytes held in memory or in an open binary file (read from its start; owned: closed by
    ``close``)."""

    def __init__(self, source: bytes | IO[bytes]) -> None:
        self._file: IO[bytes] = io.BytesIO(source) if isinstance(source, bytes) else source
        self.closed = False

    @property
    def size(self) -> int:
        """How many bytes there are."""
        position = self._file.tell()
        try:
            return self._file.seek(0, os.SEEK_END)
        finally:
            self._file.seek(position)

    def chunks(self, size: int = CHUNK_BYTES) -> Iterator[bytes]:
        """The bytes from the start, ``size`` at a time (one reader at a time)."""
        self._file.seek(0)
        while data := self._file.read(size):
            yield data

    def read(self) -> bytes:
        """All of it at once (small outputs and tests)."""
        return b"".join(self.chunks())

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            with contextlib.suppress(OSError):
                self._file.close()
