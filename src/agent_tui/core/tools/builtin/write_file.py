"""write_file: create or overwrite a whole file, atomically."""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from pydantic import Field

from agent_tui.core.calls import ResultFacts
from agent_tui.core.text.summary import changed, diff_stats
from agent_tui.core.text.utf8 import escape_bytes
from agent_tui.core.tools import claude_calls
from agent_tui.core.tools.aliases import CallAlias, renamed
from agent_tui.core.tools.base import (
    Tool,
    ToolContext,
    ToolInput,
    ToolMeta,
    ToolOutput,
)
from agent_tui.core.tools.builtin.atomic import recorded_write
from agent_tui.core.tools.errors import ToolErrorInfo, ToolFailure
from agent_tui.core.tools.file_state import content_digest
from agent_tui.core.tools.files.paths import (
    SAMPLE_BYTES,
    is_directory,
    looks_binary,
    read_only_failure,
    shown,
    write_failure,
)
from agent_tui.core.tools.files.safe_open import (
    NotRegularFile,
    ReadOnlyFile,
    open_regular,
    read_only,
    resolve_target,
)

DIFF_MAX_BYTES = 1 << 20
"""Above this size the previous content is not read back for a diff."""

DESCRIPTION = """\
\
Create or overwrite a file (UTF-8, creates parents, keeps permissions). For partial \
changes use edit_file; a written file counts as read for it."""


class WriteFileInput(ToolInput):
    path: str = Field(description="File to write.")
    content: str = Field(description="The whole new content, with the final newline.")


@dataclass
class _Written:
    created: bool
    previous: bytes | None
    unkept: str | None = None
    """Why the change cannot be rewound (the old content was too big to keep), or None."""


def _previous(path: Path) -> bytes | None:
    """The content being replaced, for the diff: read like the file is written, following no
    symlink (a swapped-in link refuses the call here already); None if absent or too big."""
    try:
        with os.fdopen(open_regular(path), "rb") as f:
            if os.fstat(f.fileno()).st_size > DIFF_MAX_BYTES:
                return None
            return f.read()
    except (OSError, NotRegularFile):
        return None


def _write(path: Path, data: bytes, ctx: ToolContext, where: str) -> _Written:
    previous = _previous(path)
    if previous is not None and ctx.files.editor:  # what the editor holds is what is replaced
        previous = ctx.files.read_text(path).encode("utf-8", errors="surrogateescape")
    created, unkept = recorded_write(path, data, ctx.changes, where, ctx.files, previous)
    return _Written(created, previous, unkept)


def _line_count(text: str) -> int:
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def _target(inp: WriteFileInput, ctx: ToolContext) -> tuple[Path, str, bool]:
    """(the path the write replaces, how it is shown, whether it exists); refuses a directory
    and a read-only file."""
    path = ctx.resolve(inp.path)
    real = resolve_target(inp.path, ctx)
    if real.is_dir():
        raise is_directory(path, ctx, "write_file")
    where = shown(path, ctx)
    try:
        st = os.stat(real, follow_symlinks=False)
    except (FileNotFoundError, NotADirectoryError):  # the write says which (a parent is a file)
        return real, where, False
    if stat.S_ISREG(st.st_mode) and read_only(st):
        raise read_only_failure(where, stat.S_IMODE(st.st_mode), "write")
    return real, where, True


def _precheck(inp: WriteFileInput, ctx: ToolContext) -> ToolErrorInfo | None:
    """What ``_call`` refuses before writing (the path is a directory, the file is read-only),
    before anyone is asked.

    Unlike ``edit_file``, a write needs no earlier read (it replaces the whole file, and the
    prompt shows the diff against what is there), so an existing file not read is no refusal.
    """
    try:
        _target(inp, ctx)
    except ToolFailure as failure:
        return failure.info
    except OSError:
        return None
    return None


async def _call(inp: WriteFileInput, ctx: ToolContext) -> ToolOutput:
    from agent_tui.core.tools.files.diff import unified_diff  # a call's import

    path = ctx.resolve(inp.path)
    real, where, existed = _target(inp, ctx)
    data = inp.content.encode("utf-8")  # text: dispatch refuses a lone surrogate
    try:
        # Once started the write completes or fails as a whole, even if the call is cancelled.
        written = await asyncio.to_thread(_write, real, data, ctx, where)
    except ReadOnlyFile as exc:  # made read-only since _target looked
        raise read_only_failure(where, exc.mode, "write") from exc
    except (FileExistsError, NotADirectoryError) as exc:
        raise ToolFailure(
            "not_a_directory",
            f"Cannot write {where}: a parent of it exists and is not a directory.",
            "Check the path; use list_dir on its parent directories.",
        ) from exc
    except PermissionError as exc:
        raise ToolFailure(
            "permission_denied",
            f"Cannot write {where}: permission denied.",
            "Write somewhere else or ask the user to fix the permissions.",
        ) from exc
    except OSError as exc:  # the write failed before its rename: nothing changed
        raise write_failure(exc, where, "write", exists=existed) from exc
    # FileStateCache keys by realpath, which raises if a symlink on the path is being swapped;
    # the write is done, and an unrecorded file only makes edit_file ask for a read first.
    with contextlib.suppress(OSError):
        ctx.file_state.record(real, digest=content_digest(data))
    diff: str | None = None
    if written.previous is not None and not looks_binary(written.previous[:SAMPLE_BYTES]):
        old = written.previous.decode("utf-8", errors="surrogateescape")
        diff = escape_bytes(unified_diff(old, inp.content, where))[0]  # bytes not UTF-8: \xNN
    lines = _line_count(inp.content)
    note = " (new file)" if written.created else ""
    added, removed = diff_stats(diff) if diff is not None else (lines, 0)
    said = (
        f"Wrote {lines:,} line{'s' if lines != 1 else ''} ({len(data):,} bytes) to {where}{note}."
    )
    if written.unkept:
        said += f" Note: {written.unkept}."
    return ToolOutput(
        said,
        data={"path": str(path), "created": written.created, "diff": diff},
        summary=changed(added, removed, created=written.created),
        facts=ResultFacts(added=added, removed=removed, created=written.created),
    )


TOOL = Tool(
    name="write_file",
    description=DESCRIPTION,
    input_aliases=renamed(file_path="path"),  # Claude Code's field name
    call_aliases=(CallAlias("Write", claude_calls.from_write),),
    input_model=WriteFileInput,
    call=_call,
    precheck=_precheck,
    meta=ToolMeta(
        read_only=False,
        concurrency_safe=False,
        destructive=True,
        rule_kind="path",
        rule_subject="path",
        reports_changes=True,
    ),
)
