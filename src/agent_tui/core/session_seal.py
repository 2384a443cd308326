"""The seals of session files (``core.state_seal``): made at creation, renewed by each append
that finds the file as agent-tui left it, checked before a session is loaded."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import BinaryIO

from agent_tui.core.nofollow import create_at, write_all
from agent_tui.core.state_seal import matches, open_parent, write_seal


class SessionDoubted(OSError):
    """A saved session that is not loaded: not as agent-tui last wrote it."""

    def __init__(self, path: Path, why: str, latest_of: Path | None = None) -> None:
        self.path, self.why = path, why
        self.id = path.stem.rsplit("-", 1)[-1]
        which = (
            f"the latest session of {latest_of}, {self.id} ({path}),"
            if latest_of is not None
            else f"the session {self.id} ({path})"
        )
        super().__init__(
            errno.EPERM,
            f"{which} {why}: it is not loaded, since a session file put there or changed by "
            "another program could put words in your mouth (its messages go to the model as "
            "yours). If agent-tui was stopped in the middle of saving it, or you restored or "
            "edited it yourself, read it and accept it with `agent-tui trust --session "
            f"{self.id}`, then load it again",
            str(path),
        )

    def __str__(self) -> str:
        return str(self.strerror)


def seal(fd: int, path: Path, *, durable: bool = False) -> None:
    """Seal the session file ``path`` (open as ``fd``) as it is now."""
    dir_fd = open_parent(path)
    try:
        write_seal(dir_fd, path.name, os.fstat(fd), durable=durable)
    finally:
        os.close(dir_fd)


def sealed_as_is(fd: int, path: Path) -> bool:
    """Whether the seal beside ``path`` matches the file open as ``fd`` now."""
    try:
        dir_fd = open_parent(path)
    except OSError:
        return False
    try:
        return matches(dir_fd, path.name, os.fstat(fd))
    finally:
        os.close(dir_fd)


class Resealing:
    """An append's seal work with one descriptor of the directory: ``ours`` (the file is as
    its seal says, before the write), then ``seal`` after it."""

    def __init__(self, fd: int, path: Path) -> None:
        self.fd, self.name = fd, path.name
        self.dir_fd = open_parent(path)
        self.ours = matches(self.dir_fd, self.name, os.fstat(fd))

    def seal(self) -> None:
        if self.ours:
            write_seal(self.dir_fd, self.name, os.fstat(self.fd))

    def close(self) -> None:
        os.close(self.dir_fd)


def create_sealed(path: Path, data: bytes) -> None:
    """A new session file holding ``data`` (mode 0600, never through a link), sealed."""
    dir_fd = open_parent(path)
    try:
        fd = create_at(dir_fd, path.name, 0o600)
        try:
            write_all(fd, data)
            write_seal(dir_fd, path.name, os.fstat(fd))
        finally:
            os.close(fd)
    finally:
        os.close(dir_fd)


def open_append(path: Path) -> BinaryIO:
    """``path`` opened for appending, not through a link."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC | os.O_NOFOLLOW
    return os.fdopen(os.open(path, flags), "ab")
