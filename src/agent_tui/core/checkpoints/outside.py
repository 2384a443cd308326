"""What a command changed outside the workspace, where the sandbox lets it write
(``OutsideWatch``).

A sandboxed command can write the workspace, a private ``/tmp`` (a tmpfs gone when it ends),
the session's own temp directory (``TMPDIR``, the session's scratch: not the user's files), and
the directories ``sandbox.allow_write`` names. The last are the user's files, outside what the
workspace's shadow keeps: each is scanned (``scan_workspace``, bounded: ``MAX_OUTSIDE_ENTRIES``
entries a directory) before and after each watched call, and what changed there is listed as
not restorable (``OutsideChange(why="outside")``): seen, never rewound. An unsandboxed command
can write anywhere the user can; no bounded scan sees that, so nothing beyond these directories
is listed (``docs/sessions.md`` says so). Blocking: run it in a thread.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Collection

from agent_tui.core.checkpoints.records import OutsideChange
from agent_tui.core.checkpoints.scan import Scan, Stamp, changes_between, scan_workspace

MAX_OUTSIDE_ENTRIES = 20_000
"""Directory entries scanned in each directory (a home named in ``allow_write`` is scanned up
to this; what lies beyond is not compared)."""


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


class OutsideWatch:
    """The scans of the writable directories outside the workspace (see the module)."""

    def __init__(
        self,
        roots: Collection[str],
        workspace: str,
        *,
        skip: Collection[str] = (),
        limit: int = MAX_OUTSIDE_ENTRIES,
    ) -> None:
        real = os.path.realpath(workspace)
        self.roots = tuple(
            r for r in dict.fromkeys(roots) if not (_inside(r, workspace) or _inside(r, real))
        )
        """The directories watched: those inside the workspace are its scan's already."""
        self._skip = (workspace, real, *skip)  # a directory holding the workspace: not again
        self._limit = limit
        self._last: dict[str, Scan] | None = None
        self._lock = threading.Lock()
        self.truncated = False
        """Whether the last scan of a directory stopped at the limit."""

    def changes(self, ignore: dict[str, Stamp] | None = None) -> list[OutsideChange]:
        """What changed in the directories since the last call (none at the first), each
        ``why="outside"``. ``ignore``: the paths the agent wrote itself, with their stamps."""
        if not self.roots:
            return []
        with self._lock:
            now = {
                root: scan_workspace(root, limit=self._limit, skip=self._skip)
                for root in self.roots
            }
            last, self._last = self._last, now
            self.truncated = any(scan.truncated for scan in now.values())
        if last is None:
            return []
        found: list[OutsideChange] = []
        for root, after in now.items():
            before = last.get(root)
            if before is None:
                continue
            for change in changes_between(before, after, ignore=ignore):
                found.append(change.model_copy(update={"why": "outside"}))
        return found
