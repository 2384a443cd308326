"""Opening a spill in the browser: ``resolve_spill`` turns a pointer path (as the model sees
it) into the spill file, or refuses one outside the spill directory (also through ``..`` or a
symlink), not named as a spill, missing or not indexed; ``open_reader`` and ``read_window``
read it as ``read_file`` does."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from agent_tui.core.browse.listing import NAMED_LIKE, index_header
from agent_tui.core.browse.refused import SpillRefused, gone, not_indexed
from agent_tui.core.browse.windows import SpillWindow, window_of
from agent_tui.core.budget.reader import SpillReader
from agent_tui.core.budget.store import SpillStore, is_spill_name


def resolve_spill(store: SpillStore, path: str | Path) -> Path:
    """The spill file a pointer path names (relative paths are relative to the cwd), as the
    store names it; ``SpillRefused`` when it is not one this browser may open."""
    given = str(path).strip()
    if not given:
        raise SpillRefused("empty", "No spill path was given.", "Pick a spill from the list.")
    candidate = Path(given).expanduser()
    if not candidate.is_absolute():
        candidate = store.cwd / candidate
    spill_root = store.checked_root()  # a link on the way to it: the store's fallback
    root = Path(os.path.realpath(spill_root))
    real = Path(os.path.realpath(candidate))
    where = store.shown(spill_root)
    if real.parent != root and real.is_relative_to(root):
        raise SpillRefused(
            "not_spill",
            f"{given} is not a spill file (spill files are directly in {where}/, named "
            f"{NAMED_LIKE}).",
            "Pick a spill from the list.",
        )
    if real.parent != root:
        via = " (through a symlink)" if os.path.islink(candidate) else ""
        raise SpillRefused(
            "outside",
            f"{given} is outside the spill directory {where}/{via}.",
            "Only the outputs the budget saved there open in the spill browser; read other "
            "files with read_file or an editor.",
        )
    if not is_spill_name(real.name):
        raise SpillRefused(
            "not_spill",
            f"{given} is not a spill file (spill files are named {NAMED_LIKE}).",
            "Pick a spill from the list.",
        )
    spill = spill_root / real.name
    try:
        mode = os.stat(spill, follow_symlinks=False).st_mode
    except FileNotFoundError:
        raise SpillRefused(
            "missing",
            f"{given} does not exist any more: it was deleted (spill cleanup removes files no "
            "message refers to).",
            "The output cannot be recovered; re-run the call if you need it.",
        ) from None
    except OSError as exc:
        raise SpillRefused(
            "missing", f"{given} cannot be read: {exc.strerror or exc}.", "Check the file."
        ) from None
    if not stat.S_ISREG(mode):
        raise SpillRefused(
            "not_spill", f"{given} is not a regular file.", "Pick a spill from the list."
        )
    if index_header(spill) is None:
        raise not_indexed(given)
    return spill


def open_reader(path: Path, shown: str) -> SpillReader:
    """A reader of a spill, or ``SpillRefused`` when it vanished or its index went stale."""
    reader = SpillReader.open(path)
    if reader is None:
        raise gone(shown) if not path.exists() else not_indexed(shown)
    return reader


def read_window(path: Path, shown: str, offset: int, limit: int) -> SpillWindow:
    """Open the spill, read one window, close it: what ``read_file`` does for this call."""
    with open_reader(path, shown) as reader:
        return window_of(reader, shown, offset, limit)
