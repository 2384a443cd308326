"""A content-addressed store of file contents: ``<root>/<2 hex>/<62 hex>``, the SHA-256 of the
bytes. The same content is stored once, whatever turn or file it came from; a blob is written to
a temporary name and renamed in, so a blob that exists is whole. Blocking: use from a thread."""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
from pathlib import Path

from agent_tui.core.tools.file_state import content_digest


class BlobStore:
    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, digest: str) -> Path:
        return self.root / digest[:2] / digest[2:]

    def has(self, digest: str) -> bool:
        return self.path(digest).is_file()

    def put(self, data: bytes) -> str:
        """Keep ``data``; its digest (``content_digest``)."""
        digest = content_digest(data)
        target = self.path(digest)
        if target.is_file():
            return digest
        target.parent.mkdir(parents=True, exist_ok=True)
        temp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
        try:
            with temp.open("xb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(temp, target)
        finally:
            with contextlib.suppress(FileNotFoundError):
                temp.unlink()
        return digest

    def get(self, digest: str) -> bytes:
        """The bytes of ``digest``; ``OSError`` when missing, ``ValueError`` when damaged."""
        data = self.path(digest).read_bytes()
        if hashlib.sha256(data).hexdigest() != digest:
            raise ValueError(f"checkpoint blob {digest[:12]} is damaged")
        return data

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
                target.parent.mkdir(parents=True, exist_ok=True)
                try:
                    os.link(blob, target)
                except OSError:
                    other.put(blob.read_bytes())
                count += 1
        return count
