"""What a git checkout already holds of the workspace: the shadow need not copy those files.

A file git tracks, committed (its object is the one ``HEAD`` has), and unchanged since git
last looked (the index's stat data — mtime, ctime, size, inode, owner, the executable bit —
equal to the file's, and not "racily clean": written before the index was), holds exactly the
bytes of its git object, unless a filter, ``ident`` or an encoding rewrote them on checkout
(such files are read as others: ``check-attr``), or an end-of-line conversion did (the
object's size must be the file's: checked at the snapshot for a sample of the files — all of
them when one differs or is missing, as with ``core.autocrlf`` — and for each at capture).
The first refresh of a ``Shadow`` keeps such a file as its object id only (``git_base``); when
a command changes it, its pre-image is fetched from git (``catfile.CatFile``) and kept in the
blob store, so its records are as any other file's.

The repository is hostile input. Git runs only through ``sandbox.safe_git`` (nothing its config
names runs: no fsmonitor, hook, filter or textconv); the index is parsed here, bounded, its
checksum verified; each fetched object is hashed here (``blob <size>\\0<data>``, SHA-1 or
SHA-256 as the repository's format) and must be the id asked for and the size the file had.
Whatever fails — no git, no ``HEAD``, a broken index or a missing object — leaves the file to be
read (at the snapshot), or its change listed as not restorable (at capture): never a wrong
byte restored. Blocking.
"""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path

from agent_tui.core.checkpoints.scan import Scan, stamp_of
from agent_tui.core.sandbox import safe_git
from agent_tui.core.workspace.git_index_file import (
    INTENT_TO_ADD,
    MALFORMED,
    SKIP_WORKTREE,
    IndexEntry,
    read_entries,
)

MAX_INDEX_BYTES = 256 << 20
"""An index bigger than this is not read (the files are read as without git)."""
SAMPLE = 256
"""Objects whose size is checked at the snapshot when there are more (``_drop_other_sizes``)."""
CONVERTING = ("filter", "ident", "working-tree-encoding")
"""Attributes that make a checked-out file's bytes differ from its object's, at equal size."""
_HASH_BYTES = {"sha1": 20, "sha256": 32}
_NS = 1_000_000_000
_U32 = 0xFFFFFFFF


@dataclass(frozen=True)
class GitBase:
    """The files of a checkout that git holds unchanged (see the module)."""

    algo: str
    """``sha1`` or ``sha256``: the repository's object format."""
    files: dict[str, tuple[str, os.stat_result]]
    """Each such file (its path as the scan spells it): its object id, and its ``lstat``."""


def git_oid(data: bytes, algo: str) -> str:
    """The id git gives a blob of ``data``."""
    header = b"blob %d\0" % len(data)
    return hashlib.new(algo, header + data).hexdigest()


def git_base(root: str, scan: Scan) -> GitBase | None:
    """The files of ``scan`` that the git checkout at ``root`` holds unchanged; None when
    ``root`` is not the top of a checkout, git cannot or must not run there, or its index
    cannot be read."""
    top = Path(root)
    try:
        git_dir = safe_git.git_dir_of(top)
        if scan.truncated or not _attributes_readable(scan, git_dir):
            return None
        algo = _git(top, "rev-parse", "--show-object-format").decode().strip()
        if algo not in _HASH_BYTES:
            return None
        committed = _tree_blobs(_git(top, "ls-tree", "-r", "-z", "--full-tree", "HEAD"))
        index = _read_index(os.path.join(git_dir, "index"), _HASH_BYTES[algo])
    except (safe_git.Refused, OSError, subprocess.SubprocessError, *MALFORMED):
        return None
    if index is None:
        return None
    entries, written = index
    found: dict[str, tuple[str, os.stat_result]] = {}
    prefix = root.rstrip(os.sep) + os.sep
    for entry in entries:
        if entry.oid not in committed:
            continue
        path = prefix + os.fsdecode(entry.path)
        seen = scan.files.get(path)
        if seen is None:
            continue
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if stamp_of(st) == seen and _unchanged(entry, st, written):
            found[path] = (entry.oid, st)
    try:
        _drop_converted(top, found, prefix)
        _drop_other_sizes(top, found)
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    return GitBase(algo, found)


def _attributes_readable(scan: Scan, git_dir: str) -> bool:
    """Whether every attributes file git would read is a regular file (a FIFO there would
    hold ``check-attr`` until its timeout, and the first command with it)."""
    for path, stamp in scan.files.items():
        if path.endswith(os.sep + ".gitattributes") and not stat.S_ISREG(stamp[2]):
            return False
    try:
        info = os.lstat(os.path.join(git_dir, "info", "attributes"))
    except OSError:
        return True
    return stat.S_ISREG(info.st_mode)


def _git(top: Path, *args: str, stdin: bytes | None = None, timeout: float = 20.0) -> bytes:
    done = safe_git.run(top, *args, stdin=stdin, timeout=timeout)
    if done.code != 0:
        raise ValueError(f"git {args[0]} failed: {done.stderr[:200]!r}")
    return done.stdout


def _tree_blobs(listing: bytes) -> set[str]:
    """The ids of the regular files of an ``ls-tree -r -z`` listing."""
    found: set[str] = set()
    for line in listing.split(b"\0"):
        head, _, _path = line.partition(b"\t")
        parts = head.split(b" ")
        if len(parts) == 3 and parts[1] == b"blob" and parts[0] in (b"100644", b"100755"):
            found.add(parts[2].decode())
    return found


def _unchanged(entry: IndexEntry, st: os.stat_result, written: int) -> bool:
    """git's own stat check: the file is as the index saw it, and was not racily clean."""
    if not stat.S_ISREG(st.st_mode) or st.st_mtime_ns >= written:
        return False
    executable = entry.mode & 0o777 == 0o755
    if executable != bool(st.st_mode & 0o100):
        return False
    ctime_s, ctime_ns, mtime_s, mtime_ns, _dev, ino, _mode, uid, gid, size = entry.fields
    return (
        (mtime_s, mtime_ns) == ((st.st_mtime_ns // _NS) & _U32, st.st_mtime_ns % _NS)
        and (ctime_s, ctime_ns) == ((st.st_ctime_ns // _NS) & _U32, st.st_ctime_ns % _NS)
        and (ino, uid, gid, size)
        == (st.st_ino & _U32, st.st_uid & _U32, st.st_gid & _U32, st.st_size & _U32)
    )


def _read_index(path: str, hash_bytes: int) -> tuple[list[IndexEntry], int] | None:
    """The stage-0 regular-file entries of the index at ``path`` and its mtime (ns); None
    when it is not a regular file, too big, damaged or of an unknown version."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_INDEX_BYTES:
            return None
        data = fh.read()
    if len(data) < 12 + hash_bytes:
        return None
    body, trailer = data[:-hash_bytes], data[-hash_bytes:]
    algo = "sha1" if hash_bytes == 20 else "sha256"
    if trailer != bytes(hash_bytes) and hashlib.new(algo, body).digest() != trailer:
        return None
    entries, _ = read_entries(body, len(body), hash_bytes)
    return [e for e in entries if _held(e)], st.st_mtime_ns


def _held(entry: IndexEntry) -> bool:
    """A stage-0 regular file's entry, its file in the work tree (not skip-worktree, not
    intent-to-add)."""
    mode = entry.mode
    regular = mode >> 12 == 0o10 and mode & 0o777 in (0o644, 0o755)
    hidden = entry.extended & (SKIP_WORKTREE | INTENT_TO_ADD)
    return regular and entry.stage == 0 and not hidden and bool(entry.path)


def _drop_converted(top: Path, found: dict[str, tuple[str, os.stat_result]], prefix: str) -> None:
    """Leave out the files an attribute converts on checkout (``CONVERTING``)."""
    if not found:
        return
    rels = [path[len(prefix) :] for path in found]
    ask = b"".join(os.fsencode(rel) + b"\0" for rel in rels)
    out = _git(top, "check-attr", "-z", "--stdin", *CONVERTING, stdin=ask, timeout=20.0)
    parts = out.split(b"\0")
    for at in range(0, len(parts) - 2, 3):
        rel, value = parts[at], parts[at + 2]
        if value not in (b"unspecified", b"unset"):
            found.pop(prefix + os.fsdecode(rel), None)


def _drop_other_sizes(top: Path, found: dict[str, tuple[str, os.stat_result]]) -> None:
    """Leave out the files whose object is missing, not a blob, or not of the file's size (an
    end-of-line conversion). Beyond ``SAMPLE`` files, a sample is checked first (reading
    10,000 loose objects' headers takes a second): all of them only when one differs."""
    files = list(found.values())
    step = max(1, len(files) // SAMPLE)
    sample = dict(files[::step])
    if step > 1 and _sizes_match(top, sample):
        return
    _sizes_match(top, dict(files), found)


def _sizes_match(
    top: Path,
    files: dict[str, os.stat_result],
    found: dict[str, tuple[str, os.stat_result]] | None = None,
) -> bool:
    """Whether each object of ``files`` (id: the file's ``lstat``) is a blob of the file's
    size; with ``found``, the files of each that is not are left out of it."""
    if not files:
        return True
    ask = "".join(f"{oid}\n" for oid in files).encode()
    out = _git(top, "cat-file", "--batch-check", stdin=ask, timeout=20.0)
    sizes: dict[str, int] = {}
    for line in out.decode(errors="replace").splitlines():
        parts = line.split(" ")
        if len(parts) == 3 and parts[1] == "blob" and parts[2].isdigit():
            sizes[parts[0]] = int(parts[2])
    if found is None:
        return all(sizes.get(oid) == st.st_size for oid, st in files.items())
    for path, (oid, st) in list(found.items()):
        if sizes.get(oid) != st.st_size:
            del found[path]
    return True
