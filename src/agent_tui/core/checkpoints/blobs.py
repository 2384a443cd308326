"""A content-addressed store of file contents: ``<root>/<2 hex>/<62 hex>``, the SHA-256 of the
bytes. The same content is stored once, whatever turn or file it came from; a blob is written to
a temporary name and renamed in, so a blob that exists is whole. A blob is kept compressed
(zlib, its fastest level: source text to a third or a quarter) when that makes it smaller,
marked by ``PACKED`` and its length; ``get`` checks the digest of what it gives either way, so
a stored file that only looks packed is still read as it is. A blob kept ``durable=False``
(the workspace's shadow: thousands at once) is not synced to disk one by one: after a crash of
the machine it may be found damaged (``get`` says so; a rewind lists the file as unavailable).
Blocking: use from a thread."""

from __future__ import annotations

import hashlib
import os
import struct
import threading
import zlib
from pathlib import Path

from agent_tui.core.state.nofollow import enter, open_below, replace_at, split_below, write_state
from agent_tui.core.state.paths import data_dir
from agent_tui.core.tools.file_state import content_digest

PACKED = b"\x00agent-tui-z1\x00"
"""The start of a compressed blob, then its length (8 bytes, big-endian), then zlib's stream."""
_LENGTH = struct.Struct(">Q")
SMALLEST_PACKED = 128
"""Shorter contents are kept as they are (the header and zlib's own would eat the gain)."""


def pack(data: bytes) -> bytes:
    """``data`` as stored: compressed when that is smaller."""
    if len(data) < SMALLEST_PACKED:
        return data
    packed = PACKED + _LENGTH.pack(len(data)) + zlib.compress(data, 1)
    return packed if len(packed) < len(data) else data


def unpack(stored: bytes, digest: str) -> bytes:
    """The bytes of ``digest`` from its ``stored`` form; ``ValueError`` when damaged."""
    if stored.startswith(PACKED):
        head = len(PACKED) + _LENGTH.size
        if len(stored) >= head:
            (length,) = _LENGTH.unpack_from(stored, len(PACKED))
            length = min(length, 1100 * len(stored))  # zlib inflates 1032:1 at most
            try:  # never more than the length it says (a damaged header cannot inflate it)
                inflate = zlib.decompressobj()
                data = inflate.decompress(stored[head:], length + 1)
            except zlib.error:
                data = b""
            if len(data) == length and hashlib.sha256(data).hexdigest() == digest:
                return data
    if hashlib.sha256(stored).hexdigest() == digest:  # kept as it is
        return stored
    raise ValueError(f"checkpoint blob {digest[:12]} is damaged")


class BlobStore:
    def __init__(self, root: Path) -> None:
        self.root = root
        self._dirs: dict[str, int] = {}
        """Descriptors of the ``<2 hex>`` directories (and ``""``: the store's), for blobs
        kept ``durable=False``."""
        self._lock = threading.Lock()

    def path(self, digest: str) -> Path:
        return self.root / digest[:2] / digest[2:]

    def has(self, digest: str) -> bool:
        return self.path(digest).is_file()

    def put(self, data: bytes, *, durable: bool = True) -> str:
        """Keep ``data``; its digest (``content_digest``). Written 0600 without following a
        link below the data directory (a link there would send the kept contents
        elsewhere); ``durable``: synced to disk before it is renamed in."""
        digest = content_digest(data)
        target = self.path(digest)
        if target.is_file():
            return digest
        stored = pack(data)
        if durable:
            write_state(target, data_dir(), stored)
            return digest
        with self._lock:
            fd = self._dirs.get(digest[:2])
            if fd is None:
                top = self._dirs.get("")
                if top is None:  # the store's own directory: opened once, as any blob's was
                    anchor, parts = split_below(self.root, data_dir())
                    anchor.mkdir(mode=0o700, parents=True, exist_ok=True)
                    top = self._dirs[""] = open_below(anchor, parts, create=True, mode=0o700)
                fd = enter(top, digest[:2], target.parent, create=True, mode=0o700)
                self._dirs[digest[:2]] = fd
            replace_at(fd, digest[2:], stored, durable=False)
        return digest

    def release(self) -> None:
        """Close the descriptors ``put(durable=False)`` kept open."""
        with self._lock:
            dirs, self._dirs = self._dirs, {}
        for fd in dirs.values():
            os.close(fd)

    def get(self, digest: str) -> bytes:
        """The bytes of ``digest``; ``OSError`` when missing, ``ValueError`` when damaged."""
        return unpack(self.path(digest).read_bytes(), digest)

    def copy_to(self, other: BlobStore) -> int:
        """Give ``other`` every blob of this store (hard links where the file system allows,
        else copies); the number of blobs it got."""
        if not self.root.is_dir():
            return 0
        count = 0
        for sub in self.root.iterdir():
            if not sub.is_dir():
                continue
            for blob in sub.iterdir():
                if blob.name.startswith("."):
                    continue
                target = other.root / sub.name / blob.name
                if target.exists():
                    continue
                try:
                    _link_into(blob, target)
                except OSError:
                    try:  # copied as its content (never a damaged one under its name)
                        data = self.get(sub.name + blob.name)
                    except (OSError, ValueError):
                        continue
                    other.put(data)
                count += 1
        return count


def _link_into(blob: Path, target: Path) -> None:
    """Hard-link ``blob`` as ``target``, its directories made without following a link."""
    anchor, parts = split_below(target.parent, data_dir())
    fd = open_below(anchor, parts, create=True, mode=0o700)
    try:
        os.link(blob, target.name, dst_dir_fd=fd, follow_symlinks=False)
    finally:
        os.close(fd)
