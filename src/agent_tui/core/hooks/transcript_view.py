"""The transcript a hook confined in the sandbox can open.

``transcript_path`` is agent-tui's state (``core.conversation.claude_export``), which the
sandbox hides from everything in it — a project's hook too. So a hook that runs in the sandbox
gets a copy in the session's temp directory (visible there, as its ``CLAUDE_ENV_FILE`` is),
made just before it runs and removed after it: it reads what a hook of the user's reads, and
nothing it writes to the copy reaches the real file or a later hook. A copy that cannot be made
leaves ``/dev/null`` (the hook runs, and reads nothing).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from agent_tui.core.hooks.payload import NO_TRANSCRIPT

FIELD = "transcript_path"


def confined_copy(payload: dict[str, Any], directory: Path) -> tuple[dict[str, Any], Path | None]:
    """``payload`` with ``transcript_path`` a copy in ``directory`` (blocking), and the copy to
    remove after the hook (None: nothing to remove)."""
    source = payload.get(FIELD)
    if not isinstance(source, str) or source in ("", NO_TRANSCRIPT):
        return payload, None
    try:
        fd, name = tempfile.mkstemp(prefix="claude-transcript-", suffix=".jsonl", dir=directory)
    except OSError:
        return {**payload, FIELD: NO_TRANSCRIPT}, None
    try:
        with os.fdopen(fd, "wb") as out:
            read = os.open(source, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
            with os.fdopen(read, "rb") as into:
                shutil.copyfileobj(into, out, 1 << 20)
    except OSError:
        drop_copy(Path(name))
        return {**payload, FIELD: NO_TRANSCRIPT}, None
    return {**payload, FIELD: name}, Path(name)


def drop_copy(path: Path | None) -> None:
    """Remove a copy ``confined_copy`` made (blocking)."""
    if path is not None:
        with contextlib.suppress(OSError):
            path.unlink()


__all__ = ["confined_copy", "drop_copy"]
