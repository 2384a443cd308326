"""The spill directory: a real directory the agent makes, reached without following a link.

``.agent-spill`` is in the workspace, so a repository can ship it and a command can replace it
— as a symlink into ``~/.bashrc.d`` (which Fedora's bash sources), say, or a directory whose
``.index`` or ``.gitignore`` is one. Written blindly, every spill would then land where the
link points. So the directory is reached from the workspace one component at a time without
following a link (``core.state.nofollow``), its files are created with ``O_EXCL | O_NOFOLLOW`` and
renamed in relative to its descriptor, and a link on the way is refused: the spills of the
session go to a private directory of their own instead (``mkdtemp``: made by us, mode 0700),
and ``problem`` says so once — where the outputs are, why, and what to do — so nothing is lost
and nothing is written through the link. A directory configured outside the workspace (only
the user's own settings can name one) is reached through its parents as named; its own name
must not be a link either.
"""

from __future__ import annotations

import logging
import os
import tempfile
import threading
from pathlib import Path

from agent_tui.core.state.nofollow import LinkRefused, enter, open_below, split_below

log = logging.getLogger(__name__)
FALLBACK_PREFIX = "agent-tui-spill-"


class SpillDir:
    """Where one store's spills are: ``path``, the configured directory until it is refused,
    then a private fallback directory for the rest of the session."""

    def __init__(self, configured: Path, cwd: Path) -> None:
        self.configured = configured
        self.cwd = cwd
        self.path = configured
        self.problem: str | None = None
        """Why the configured directory is not used, and where the spills go instead."""
        self._reported = False
        self._lock = threading.Lock()
        self._anchor, self._parts = split_below(configured, cwd)

    @property
    def refused(self) -> bool:
        return self.problem is not None

    def open(self, *sub: str, create: bool) -> int:
        """A descriptor of ``path/sub…`` (made when missing and ``create``), nothing below the
        anchor followed; a link on the way to the configured directory switches to the
        fallback first. ``FileNotFoundError`` when it does not exist and not ``create``; a
        file where a directory should be raises ``NotADirectoryError`` (the output is then
        kept as an excerpt, as for any failed write). The caller closes it."""
        while True:
            anchor, parts = self._anchor, self._parts
            try:
                return open_below(anchor, (*parts, *sub), create=create)
            except LinkRefused as exc:
                if not self._switch(exc, anchor, parts):
                    raise

    def open_existing(self, *sub: str) -> int:
        """A descriptor of ``path/sub…`` as it is now: nothing made, nothing below the anchor
        followed, and no switch to the fallback (a link on the way is ``LinkRefused``, for a
        caller that only looks: the reference records look for the spill directory at every
        session start, which must not move the spills elsewhere by itself)."""
        return open_below(self._anchor, (*self._parts, *sub), create=False)

    def open_with(self, sub: str) -> tuple[int, int, Path]:
        """(descriptor of ``path``, of ``path/sub``, ``path``), both made when missing and
        reached as ``open`` does: a link at ``sub`` switches to the fallback too."""
        while True:
            anchor, parts = self._anchor, self._parts
            fd = self.open(create=True)
            path = self.path
            try:
                return fd, enter(fd, sub, path / sub, create=True), path
            except LinkRefused as exc:
                os.close(fd)
                if not self._switch(exc, anchor, parts):
                    raise

    def take_problem(self) -> str | None:
        """The refusal, once (for the front ends), or None."""
        if self.problem is None or self._reported:
            return None
        self._reported = True
        return self.problem

    def _switch(self, exc: LinkRefused, anchor: Path, parts: tuple[str, ...]) -> bool:
        """Use a private directory from now on, because of ``exc`` met on the way to the
        configured one. False when the fallback itself was refused (then nothing helps)."""
        with self._lock:
            if (self._anchor, self._parts) != (anchor, parts):
                return True  # another thread switched already: try the fallback
            if self.refused:
                return False
            fallback = Path(tempfile.mkdtemp(prefix=FALLBACK_PREFIX))
            self.problem = _explain(exc, self.configured, self.cwd, fallback)
            log.warning("%s", self.problem)
            self.path = fallback
            self._anchor, self._parts = fallback.parent, (fallback.name,)
            return True


def shown(path: Path, cwd: Path) -> str:
    absolute, base = Path(os.path.abspath(path)), Path(os.path.abspath(cwd))
    return absolute.relative_to(base).as_posix() if absolute.is_relative_to(base) else str(path)


def _explain(exc: LinkRefused, configured: Path, cwd: Path, fallback: Path) -> str:
    where, link = shown(configured, cwd), shown(exc.link, cwd)
    what = (
        f"the spill directory {where} is a symbolic link (to {exc.target})"
        if exc.link == configured
        else f"{link}, on the way to the spill directory {where}, is a symbolic link "
        f"(to {exc.target})"
    )
    return (
        f"{what}: agent-tui writes spilled outputs only into a real directory, never through a "
        "link, which could put them anywhere (into a directory your shell runs files from, "
        f"say). This session's full outputs are saved in {fallback}/ instead. To keep them "
        f"in the project, remove the link (rm {link}); to keep them elsewhere, set "
        "budget.spill_dir in your user settings.json."
    )
