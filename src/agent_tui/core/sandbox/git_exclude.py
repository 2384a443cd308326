"""Keep a file of agent-tui's out of git: a line in the repository's ``info/exclude``.

``.agent-tui/settings.local.json`` holds the user's "always allow" rules for this project: their
own, never meant to be committed. Claude Code configures git to ignore its
``.claude/settings.local.json`` when it creates it; so does agent-tui for its local settings,
with a pattern in ``$GIT_COMMON_DIR/info/exclude``. That file is git's own per-clone ignore
list: it is never committed, never shows as a change, and is not the user's global git config
(a ``.gitignore`` edit would be a change to commit, in every repository used).

Through the hardened git access of ``safe_git``: git is not run at all (nothing a repository's
config names can run), the git directory is found as ``safe_git.git_dir_of`` finds it (owned by
the user, no symlinked ``.git``), and the file is rewritten with ``core.state.nofollow`` (no
symlink below the git directory is followed). Blocking; nothing here raises: a problem is
returned as a sentence (the settings were saved all the same).
"""

from __future__ import annotations

import os
from pathlib import Path

from agent_tui.core.sandbox.safe_git import Refused, git_dir_of
from agent_tui.core.state.nofollow import read_below, write_below

EXCLUDE = ("info", "exclude")
COMMENT = "# agent-tui: personal settings (always-allow rules), never committed"


def repository_of(path: Path) -> Path | None:
    """The nearest ancestor of ``path`` (itself included) holding ``.git``; None: none."""
    for directory in (path, *path.parents):
        if os.path.lexists(directory / ".git"):
            return directory
    return None


def common_dir(git_dir: str) -> Path:
    """Where ``info/exclude`` is: the common directory of a linked worktree's git dir."""
    try:
        with open(os.path.join(git_dir, "commondir"), "rb") as handle:
            common = os.fsdecode(handle.readline(4096).strip())
    except OSError:
        return Path(git_dir)
    return Path(os.path.normpath(os.path.join(git_dir, common)))


def exclude(workspace: Path, pattern: str) -> str | None:
    """Add ``pattern`` to the ``info/exclude`` of ``workspace``'s repository (once). None when
    done, already there, or there is no repository; else why not."""
    root = repository_of(workspace)
    if root is None:
        return None
    try:
        anchor = common_dir(git_dir_of(root))
    except Refused as exc:
        return f"git would not be trusted there ({exc}); {pattern} is not git-ignored"
    try:
        try:
            old = read_below(anchor, Path(*EXCLUDE), limit=1 << 20)
        except FileNotFoundError:
            old = b""
        lines = old.decode("utf-8", "surrogateescape").splitlines()
        if pattern in (line.strip() for line in lines):
            return None
        text = old.decode("utf-8", "surrogateescape")
        if text and not text.endswith("\n"):
            text += "\n"
        text += f"{COMMENT}\n{pattern}\n"
        write_below(
            anchor,
            Path(*EXCLUDE),
            text.encode("utf-8", "surrogateescape"),
            mode=0o644,
            keep_mode=True,
            dir_mode=0o755,
        )
    except OSError as exc:
        where = anchor.joinpath(*EXCLUDE)
        return f"cannot add {pattern} to {where} ({exc.strerror or exc}); it is not git-ignored"
    return None
