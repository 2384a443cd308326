"""The session's temp directory: where commands and file tools may write outside the workspace
without asking.

Outside the workspace is not the project: a write there asks in every mode
(``permissions.outside``), because a file outside can run code later (``~/.bashrc.d/``, a
``.pth`` in ``site-packages``, ``~/.cargo/config.toml``…). Programs still need somewhere to
put temporary files, so each session gets one private directory of its own:

- made on first use with ``mkdtemp`` (mode 0700, a random name) in the system's temp dir,
  so no other user can see into it or plant anything there beforehand;
- exported to every command as ``TMPDIR`` (``mktemp``, Python's ``tempfile``, compilers and
  test runners put their files there);
- writable inside the sandbox (bound over the sandbox's private ``/tmp``) and kept between
  the commands of the session, so a file written by one command or by ``write_file`` is seen
  by the next;
- removed when agent-tui exits (not after a ``kill -9``: the system's temp cleaning takes it
  then). Nothing in it is ever run by the agent or the user's shells later.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import threading
from pathlib import Path

PREFIX = "agent-tui-"


class Scratch:
    """One session's temp directory, made on first use (``path``)."""

    def __init__(self, parent: Path | None = None) -> None:
        self.parent = parent
        """Where to make it (None: the system's temp dir, ``tempfile.gettempdir``)."""
        self._path: Path | None = None
        self._lock = threading.Lock()

    @property
    def path(self) -> Path:
        """The directory (resolved), made now if it was not yet."""
        with self._lock:
            if self._path is None:
                made = tempfile.mkdtemp(prefix=PREFIX, dir=self.parent)
                self._path = Path(os.path.realpath(made))
                atexit.register(_remove, self._path)
            return self._path

    @property
    def made(self) -> Path | None:
        """The directory if it was made already, else None (nothing is made)."""
        return self._path

    def remove(self) -> None:
        """Delete it and what is in it (symlinks in it are removed, never followed)."""
        with self._lock:
            if self._path is not None:
                _remove(self._path)
                self._path = None


def _remove(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)
