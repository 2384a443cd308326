"""The blob store keeps contents compressed when that is smaller, and gives back exactly the
bytes of a digest, whatever form they were stored in; a damaged blob is an error, never
other bytes."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from agent_tui.core.checkpoints.blobs import PACKED, BlobStore, pack


@pytest.fixture
def store(tmp_path: Path) -> BlobStore:
    return BlobStore(tmp_path / "blobs")


SOURCE = "".join(f"def f{i}(x):\n    return x * {i}  # line {i}\n" for i in range(400)).encode()


@pytest.mark.parametrize("durable", [True, False])
def test_text_is_kept_smaller_and_read_back_exactly(store: BlobStore, durable: bool) -> None:
    digest = store.put(SOURCE, durable=durable)
    store.release()
    assert digest == hashlib.sha256(SOURCE).hexdigest()
    stored = store.path(digest).read_bytes()
    assert stored.startswith(PACKED)
    assert len(stored) * 3 < len(SOURCE)
    assert store.get(digest) == SOURCE


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"short",
        os.urandom(50_000),  # incompressible: kept as it is
        PACKED + os.urandom(5_000),  # looks packed, is not: kept and read as it is
        PACKED + b"\x00" * 8 + b"not zlib at all" * 20,
        PACKED,
    ],
    ids=["empty", "short", "random", "magic-random", "magic-garbage", "magic-only"],
)
def test_any_bytes_come_back_exactly(store: BlobStore, data: bytes) -> None:
    digest = store.put(data)
    assert store.get(digest) == data


def test_a_damaged_blob_is_an_error(store: BlobStore) -> None:
    digest = store.put(SOURCE)
    path = store.path(digest)
    stored = bytearray(path.read_bytes())
    stored[len(stored) // 2] ^= 0xFF
    path.write_bytes(bytes(stored))
    with pytest.raises(ValueError, match="damaged"):
        store.get(digest)
    # a header claiming more than is there, or a stream cut short
    path.write_bytes(pack(SOURCE)[:-40])
    with pytest.raises(ValueError, match="damaged"):
        store.get(digest)
    huge = bytearray(pack(SOURCE))
    huge[len(PACKED) : len(PACKED) + 8] = (1 << 62).to_bytes(8, "big")
    path.write_bytes(bytes(huge))
    with pytest.raises(ValueError, match="damaged"):
        store.get(digest)


def test_blobs_stored_before_compression_still_read(store: BlobStore) -> None:
    """A session from before: its blobs are the plain bytes."""
    digest = hashlib.sha256(SOURCE).hexdigest()
    path = store.path(digest)
    path.parent.mkdir(parents=True)
    path.write_bytes(SOURCE)
    assert store.get(digest) == SOURCE


def test_copy_to_another_store_keeps_each_digest(store: BlobStore, tmp_path: Path) -> None:
    digests = [store.put(SOURCE), store.put(os.urandom(3_000)), store.put(b"tiny")]
    other = BlobStore(tmp_path / "other")
    assert store.copy_to(other) == 3
    for digest in digests:
        assert other.get(digest) == store.get(digest)
