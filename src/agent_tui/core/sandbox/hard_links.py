"""Hard links to protected files: another name for the same content.

A hard link to ``.env`` — shipped in a tarball next to it, or made by a command — is the same
file under a name no read rule matches, so neither the rules' patterns nor a mask of the
protected names stop ``cat x``. What identifies a file is its ``(st_dev, st_ino)``: a name is
a protected file's other name when it has that identity. Only a regular file whose link count
(``st_nlink``) is above one can have another name, so the check costs nothing for the rest:

- the walk (``walk.find_protected``) notes the regular files with ``st_nlink > 1`` it meets
  (candidates, kept in its cached listings);
- ``identities`` gives the identities of the protected files with ``st_nlink > 1`` (the files
  found, and those inside protected directories, bounded);
- a candidate whose identity is one of them is protected too; if the identities could not all
  be read (a huge protected directory), every candidate is (fail closed).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

MAX_ENTRIES = 20_000
"""Entries looked at inside protected directories for their files' identities."""

Identity = tuple[int, int]


@dataclass
class Identities:
    """The identities of the protected files that have other names, each with one name."""

    names: dict[Identity, str] = field(default_factory=dict)
    complete: bool = True
    """False when a protected directory held more than ``MAX_ENTRIES`` entries."""


def identity(path: str | Path) -> tuple[Identity, int] | None:
    """``(identity, link count)`` of the regular file ``path`` leads to, or None."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    return (info.st_dev, info.st_ino), info.st_nlink


def identities(protected: Iterable[Path], limit: int | None = None) -> Identities:
    """The identities of the regular files with ``st_nlink > 1`` among ``protected`` and
    below its directories (symbolic links are not followed)."""
    limit = MAX_ENTRIES if limit is None else limit
    out = Identities()
    seen = 0
    for path in protected:
        try:
            info = os.lstat(path)
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode):
            if info.st_nlink > 1:
                out.names.setdefault((info.st_dev, info.st_ino), str(path))
            continue
        if not stat.S_ISDIR(info.st_mode):
            continue
        stack = [str(path)]
        while stack:
            directory = stack.pop()
            try:
                with os.scandir(directory) as entries:
                    for entry in entries:
                        seen += 1
                        if seen > limit:
                            out.complete = False
                            return out
                        if entry.is_dir(follow_symlinks=False):
                            stack.append(entry.path)
                        elif entry.is_file(follow_symlinks=False):
                            found = entry.stat(follow_symlinks=False)
                            if found.st_nlink > 1:
                                key = (found.st_dev, found.st_ino)
                                out.names.setdefault(key, entry.path)
            except OSError:
                continue
    return out


def other_names(
    candidates: Iterable[tuple[str, int, int]], protected: Iterable[Path]
) -> list[Path]:
    """The ``candidates`` (path, device, inode) that are another name of a ``protected``
    file — all of them when the protected files' identities could not all be read."""
    candidates = list(candidates)
    if not candidates:
        return []
    known = identities(protected)
    return [
        Path(path)
        for path, device, inode in candidates
        if not known.complete or (device, inode) in known.names
    ]
