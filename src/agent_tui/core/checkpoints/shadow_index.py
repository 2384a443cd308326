"""The shadow saved beside its session, so that a resumed session does not read the workspace
again: each kept file's stamp, its content's digest in the session's blob store (or its git
object id), its mode, size or link target (``shadow.json`` in the session's directory).

Written when the session closes; read when it is resumed, before the first refresh, which
then reads only the files whose stamp is not the one saved (changed since, by anyone). What is
read back is checked: the workspace must be the same, every field of the type it must have, and
every blob named must still be in the store (else that file is read again); a file that does
not parse is ignored. The blob store checks each content's digest when it is used. Blocking.
"""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path
from typing import Any

from agent_tui.core.checkpoints.shadow import Kept, Shadow
from agent_tui.core.state.nofollow import write_state
from agent_tui.core.state.paths import data_dir

NAME = "shadow.json"
VERSION = 1
MAX_BYTES = 256 << 20
_DIGEST = re.compile(r"[0-9a-f]{64}")


def save_shadow(shadow: Shadow, path: Path) -> None:
    """Write what ``shadow`` keeps to ``path`` (``OSError`` when it cannot)."""
    algo, files = shadow.export()
    rows = [
        [p, *k.stamp, k.blob, k.mode, k.size, k.link, k.digest, k.git_oid]
        for p, k in files.items()
        if k.unkept is None  # not in the store: read again at the next start
    ]
    data = {"version": VERSION, "root": shadow.root, "algo": algo, "files": rows}
    write_state(path, data_dir(), json.dumps(data, separators=(",", ":")).encode())


def load_shadow(shadow: Shadow, path: Path) -> int:
    """Give ``shadow`` what ``path`` saved of its workspace; the number of files taken (0
    when there is no such file, or it is not one this version wrote for this workspace)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        with os.fdopen(fd, "rb") as fh:
            st = os.fstat(fh.fileno())
            if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_BYTES:
                return 0
            data = json.loads(fh.read())
    except (OSError, ValueError):
        return 0
    if not isinstance(data, dict) or data.get("version") != VERSION:
        return 0
    algo = data.get("algo")
    if data.get("root") != shadow.root or algo not in (None, "sha1", "sha256"):
        return 0
    rows = data.get("files")
    files: dict[str, Kept] = {}
    for row in rows if isinstance(rows, list) else []:
        kept = _kept(row)
        if kept is None:
            return 0
        path_of, entry = kept
        if entry.blob is not None and not shadow.blobs.has(entry.blob):
            continue  # its content is gone from the store: read again
        files[path_of] = entry
    shadow.adopt(algo, files)
    return len(files)


def _kept(row: Any) -> tuple[str, Kept] | None:
    if not isinstance(row, list) or len(row) != 11:
        return None
    path, mtime, size, st_mode, ino, blob, mode, length, link, digest, oid = row
    ints = (mtime, size, st_mode, ino, mode, length)
    texts = (blob, link, digest, oid)
    if not isinstance(path, str) or not all(type(n) is int for n in ints):
        return None
    if not all(t is None or isinstance(t, str) for t in texts):
        return None
    if blob is not None and (_DIGEST.fullmatch(blob) is None or blob != digest):
        return None
    return path, Kept((mtime, size, st_mode, ino), blob, mode, length, link, digest, oid)
