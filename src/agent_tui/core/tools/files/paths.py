"""Shared helpers for the built-in tools: how paths are shown, precise path errors, threads."""

from __future__ import annotations

import asyncio
import errno
import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from agent_tui.core.tools.base import ToolContext, ToolMeta
from agent_tui.core.tools.errors import ToolFailure

T = TypeVar("T")

SAMPLE_BYTES = 8192
"""How much of a file the binary check looks at."""


def shown(path: Path, ctx: ToolContext) -> str:
    """``path`` as the model should see it: relative to the session cwd when inside it."""
    absolute = Path(os.path.abspath(path))
    cwd = Path(os.path.abspath(ctx.cwd))
    if absolute == cwd:
        return "."
    if absolute.is_relative_to(cwd):
        return absolute.relative_to(cwd).as_posix()
    return str(absolute)


def looks_binary(sample: bytes) -> str | None:
    """Why ``sample`` (the start of a file) is not text, or None if it looks like text."""
    if b"\0" in sample:
        return "it contains NUL bytes"
    text = sample.decode("utf-8", errors="replace")
    if not text:
        return None
    bad = text.count("\ufffd")
    # A multi-byte character cut at the end of the sample is not a sign of binary data.
    if bad and text.endswith("\ufffd") and len(sample) >= SAMPLE_BYTES:
        bad -= 1
    if bad / len(text) > 0.1:
        return f"{bad} of the first {len(sample)} bytes are not valid UTF-8"
    return None


def closest_names(path: Path, ctx: ToolContext, n: int = 3) -> list[str]:
    """Entries next to a missing ``path`` whose names look like its name."""
    try:
        names = os.listdir(path.parent)
    except OSError:
        return []
    import difflib  # only a missing path asks (issue 45: not on every start)

    lowered = {name.lower(): name for name in names}
    found = difflib.get_close_matches(path.name, names, n=n, cutoff=0.6)
    exact_case = lowered.get(path.name.lower())
    if exact_case and exact_case not in found:
        found.insert(0, exact_case)
    return [shown(path.parent / name, ctx) for name in found[:n]]


def not_found(path: Path, ctx: ToolContext, *, kind: str = "file") -> ToolFailure:
    """The error for a missing path: closest names in its directory, or the missing ancestor."""
    where = shown(path, ctx)
    ancestor = path.parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if ancestor != path.parent:
        missing = shown(path.parent, ctx)
        return ToolFailure(
            "not_found",
            f"{where} does not exist: its directory {missing} does not exist either "
            f"(the closest existing directory is {shown(ancestor, ctx)}).",
            f"Check the path. Use list_dir on {shown(ancestor, ctx)} or glob to find the {kind}.",
        )
    suggestions = closest_names(path, ctx)
    if suggestions:
        return ToolFailure(
            "not_found",
            f"{where} does not exist. Similar names in {shown(path.parent, ctx)}: "
            + ", ".join(suggestions)
            + ".",
            "If you meant one of those, call again with that path; otherwise use glob to "
            f"find the {kind}.",
            details=[f"closest: {s}" for s in suggestions],
        )
    return ToolFailure(
        "not_found",
        f"{where} does not exist.",
        f"Use list_dir on {shown(path.parent, ctx)} or glob to find the {kind}.",
    )


def is_directory(path: Path, ctx: ToolContext, action: str) -> ToolFailure:
    where = shown(path, ctx)
    return ToolFailure(
        "is_directory",
        f"{where} is a directory; {action} works on files.",
        f"Use list_dir(path={json.dumps(where)}) to see what it contains, then pick a file.",
    )


def read_only_failure(where: str, mode: int, action: str) -> ToolFailure:
    """The refusal to change a read-only file (``safe_open.read_only``)."""
    return ToolFailure(
        "read_only",
        f"Cannot {action} {where}: it is read-only (mode {mode:04o}); the file is unchanged.",
        f"If it really should change, ask the user to make it writable (e.g. chmod u+w "
        f"{where}); do not work around the mode.",
    )


_NO_SPACE = {
    errno.ENOSPC: "no space left on device",
    errno.EDQUOT: "no space left on device (the disk quota is exceeded)",
    errno.EFBIG: "no space left for it (the file would exceed the file size limit)",
}


def write_failure(exc: OSError, where: str, action: str, *, exists: bool = True) -> ToolFailure:
    """The error of an atomic write (``atomic_write``) that failed with ``exc``: it failed
    before the rename, so the file is as it was (or, if it did not exist, still absent)."""
    unchanged = "the file is unchanged" if exists else "nothing was written"
    reason = _NO_SPACE.get(exc.errno or 0)
    if reason is not None:
        return ToolFailure(
            "no_space",
            f"Cannot {action} {where}: {reason}; {unchanged}.",
            "Free some disk space (or ask the user to), then call again.",
        )
    return ToolFailure(
        "io_error",
        f"Cannot {action} {where}: {exc.strerror or exc}; {unchanged}.",
        "Check the path and the file system (list_dir its directory).",
    )


async def in_thread(work: Callable[[threading.Event], T]) -> T:
    """Run blocking file IO in a worker thread without blocking the event loop.

    ``work`` receives a stop flag that is set when the awaiting task is cancelled (Esc, a
    dispatch timeout), so a long scan ends soon instead of running on unseen.
    """
    stop = threading.Event()
    try:
        return await asyncio.to_thread(work, stop)
    finally:
        stop.set()


READ_ONLY_PATH_META = ToolMeta(
    read_only=True, concurrency_safe=True, rule_kind="path", rule_subject="path"
)
"""Metadata of the read-only explorers (read_file, list_dir, glob, grep): safe to run in
parallel; permission rules match their ``path`` argument as a path glob."""
