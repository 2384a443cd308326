"""git's index file read without git (gitformat-index(5), versions 2 to 4): its entries one by
one, each with its path, object id, stat data and flags. Shared by the permission checks
(``core.permissions.git_index``: which paths are tracked) and the rewind's shadow
(``core.checkpoints.gitbase``: which files git holds unchanged). The bytes are hostile input
(a repository ships its own ``.git``): every read is bounded by the data; a damaged entry
raises ``ValueError`` (or ``struct.error`` / ``IndexError``: ``MALFORMED``), never more.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

MALFORMED = (ValueError, LookupError, struct.error)
"""What reading a damaged index raises."""
_FIELDS = struct.Struct(">10I")
_FLAGS = struct.Struct(">H")
EXTENDED = 0x4000
SKIP_WORKTREE = 0x4000
"""In the extended flags (with ``INTENT_TO_ADD``: an entry whose file git does not hold)."""
INTENT_TO_ADD = 0x2000


@dataclass(frozen=True)
class IndexEntry:
    path: bytes
    """Relative to the work tree's top, as git stores it."""
    oid: str
    """The object id, hex."""
    fields: tuple[int, ...]
    """ctime s, ctime ns, mtime s, mtime ns, dev, ino, mode, uid, gid, size (32 bits each)."""
    flags: int
    extended: int
    """The extended flags (0 when the entry has none)."""

    @property
    def mode(self) -> int:
        return self.fields[6]

    @property
    def stage(self) -> int:
        return (self.flags >> 12) & 3


def read_entries(data: bytes, end: int, hash_size: int) -> tuple[list[IndexEntry], int]:
    """The entries of the index ``data`` (its 12-byte header checked), each ending before
    ``end`` (where the trailing checksum starts), and where the extensions start."""
    if len(data) < 12 or data[:4] != b"DIRC":
        raise ValueError("not an index")
    version, count = struct.unpack_from(">II", data, 4)
    if version not in (2, 3, 4):
        raise ValueError(f"index version {version}")
    pos, previous = 12, b""
    entries: list[IndexEntry] = []
    for _ in range(count):
        fields = _FIELDS.unpack_from(data, pos)
        oid = data[pos + 40 : pos + 40 + hash_size].hex()
        (flags,) = _FLAGS.unpack_from(data, pos + 40 + hash_size)
        at = pos + 42 + hash_size
        extended = 0
        if flags & EXTENDED:
            if version < 3:
                raise ValueError("extended flags in a version 2 index")
            (extended,) = _FLAGS.unpack_from(data, at)
            at += 2
        if version == 4:
            strip, at = _varint(data, at)
            stop = data.index(b"\0", at)
            if strip > len(previous):
                raise ValueError("bad path compression")
            name = previous[: len(previous) - strip] + data[at:stop]
            pos = stop + 1
        else:
            stop = data.index(b"\0", at)
            name = data[at:stop]
            pos += (stop - pos + 8) & ~7
        if pos > end:
            raise ValueError("an entry past the end")
        previous = name
        entries.append(IndexEntry(name, oid, fields, flags, extended))
    return entries, pos


def _varint(data: bytes, at: int) -> tuple[int, int]:
    """git's offset varint (index v4's path compression)."""
    byte = data[at]
    at += 1
    value = byte & 0x7F
    while byte & 0x80:
        byte = data[at]
        at += 1
        value = ((value + 1) << 7) | (byte & 0x7F)
    return value, at
