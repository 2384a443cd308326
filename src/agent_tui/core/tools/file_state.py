"""What the model has read: lets ``edit_file`` refuse to edit a file that changed since."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path


def content_digest(data: bytes) -> str:
    """The digest recorded for a file's bytes (sha256, hex); streamable with ``hashlib``."""
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class FileStamp:
    mtime_ns: int
    size: int

    @classmethod
    def of(cls, path: Path) -> FileStamp:
        return cls.from_stat(os.stat(path))

    @classmethod
    def from_stat(cls, st: os.stat_result) -> FileStamp:
        return cls(st.st_mtime_ns, st.st_size)


class FileStateCache:
    """Per-session record of the on-disk state of each file when the model last saw it.

    The stamp (mtime, size) is the cheap check. A content digest, when recorded, also catches
    a same-size rewrite inside one timestamp tick; it is compared when the caller passes the
    bytes it is about to act on.
    """

    def __init__(self) -> None:
        self._stamps: dict[Path, FileStamp] = {}
        self._digests: dict[Path, str] = {}

    def clear(self) -> None:
        """Forget every file (a new conversation: nothing read is in the model's context)."""
        self._stamps.clear()
        self._digests.clear()

    @staticmethod
    def _key(path: Path) -> Path:
        return Path(os.path.realpath(path))

    def record(
        self, path: Path, *, digest: str | None = None, stamp: FileStamp | None = None
    ) -> None:
        """Remember the on-disk state of ``path`` (after a read or our own write).

        ``stamp`` defaults to the file's current stamp; pass the one taken when the bytes were
        read (``FileStamp.from_stat(os.fstat(fd))``) so a change during the read is caught.
        ``digest`` is ``content_digest`` of the bytes seen, if known.
        """
        key = self._key(path)
        self._stamps[key] = stamp if stamp is not None else FileStamp.of(path)
        if digest is None:
            self._digests.pop(key, None)
        else:
            self._digests[key] = digest

    def stamp(self, path: Path) -> FileStamp | None:
        return self._stamps.get(self._key(path))

    def digest(self, path: Path) -> str | None:
        return self._digests.get(self._key(path))

    def forget(self, path: Path) -> None:
        key = self._key(path)
        self._stamps.pop(key, None)
        self._digests.pop(key, None)

    def changed_since_read(self, path: Path, content: bytes | None = None) -> bool | None:
        """True if the file changed since recorded, False if not, None if never read.

        With ``content`` (the file's current bytes) the recorded digest is compared too.
        """
        known = self.stamp(path)
        if known is None:
            return None
        try:
            if FileStamp.of(path) != known:
                return True
        except FileNotFoundError:
            return True
        if content is not None:
            digest = self.digest(path)
            if digest is not None and content_digest(content) != digest:
                return True
        return False
