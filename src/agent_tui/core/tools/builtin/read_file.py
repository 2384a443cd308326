"""read_file: a window of a text file as numbered lines, streamed, with a footer to continue."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import io
import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from pydantic import Field

from agent_tui.core.attachments import human_size
from agent_tui.core.budget.reader import SpillReader
from agent_tui.core.calls import ResultFacts
from agent_tui.core.images.prepare import (
    MAX_INPUT_BYTES,
    ImageError,
    NotAnImage,
    looks_like_image,
    prepare_image,
)
from agent_tui.core.text.utf8 import escape_bytes, escaped_bytes
from agent_tui.core.tools import claude_calls
from agent_tui.core.tools.aliases import CallAlias, renamed
from agent_tui.core.tools.base import Tool, ToolContext, ToolInput, ToolOutput
from agent_tui.core.tools.errors import CANCELLED, ToolFailure
from agent_tui.core.tools.file_access import LOCAL_FILES, FileAccess
from agent_tui.core.tools.file_state import FileStamp
from agent_tui.core.tools.files.paths import (
    READ_ONLY_PATH_META,
    SAMPLE_BYTES,
    in_thread,
    is_directory,
    looks_binary,
    not_found,
    shown,
)
from agent_tui.core.tools.files.read_window import Rows, Window
from agent_tui.core.tools.files.safe_open import (
    NotRegularFile,
    open_regular,
    resolve_target,
    same_file,
    swapped,
)

MAX_LINES = 2000
MAX_LINE_CHARS = 2000
MAX_WINDOW_CHARS = 100_000
SEGMENT_CHARS = 20_000
CHUNK_BYTES = 1 << 20

DESCRIPTION = f"""\
\
Read a text file as numbered lines (`N<tab>text`; never copy the prefix into edit_file). At \
most {MAX_LINES:,} lines (~{MAX_WINDOW_CHARS // 1000} KB) a call; the footer gives the total, \
the next offset and, for a line cut at {MAX_LINE_CHARS:,} chars, the char_offset to read on \
({SEGMENT_CHARS:,} chars a call). Pages `.agent-spill/…` too. Shows images; refuses other \
binaries, directories."""


class ReadFileInput(ToolInput):
    path: str = Field(description="File to read.")
    offset: int = Field(
        default=1, ge=1, description="First line, 1-based (the footer's `next` offset)."
    )
    limit: int = Field(default=MAX_LINES, ge=1, description="Most lines.")
    char_offset: int = Field(
        default=0,
        ge=0,
        description="Where in line `offset` to read on (the footer's value; ignores limit).",
    )


@dataclass
class _View:
    """What a read produced, from a plain file or a spill file."""

    rows: Rows
    total: int
    segment: tuple[str, int] | None = None
    final_newline: bool | None = None
    """Reported for spill files only, so paging them reconstructs the output exactly."""
    stamp: FileStamp | None = None
    digest: str | None = None


def _window(offset: int, limit: int, char_offset: int) -> Window:
    if char_offset:
        rows = Rows(MAX_WINDOW_CHARS)
        return Window(offset, offset, SEGMENT_CHARS, rows, skip=char_offset, char_mode=True)
    return Window(offset, offset + limit - 1, MAX_LINE_CHARS, Rows(MAX_WINDOW_CHARS))


def _scan(
    f: BinaryIO,
    where: str,
    inp: ReadFileInput,
    limit: int,
    stop: threading.Event,
    st: os.stat_result | None = None,
) -> _View:
    """``f`` as numbered rows; ``st``: the stat of the file on disk when ``f`` is not it (an
    editor's text), else ``f``'s own."""
    st = st if st is not None else os.fstat(f.fileno())
    reason = looks_binary(f.read(SAMPLE_BYTES))
    if reason:
        raise ToolFailure(
            "binary_file",
            f"{where} does not look like a text file: {reason}.",
            "Do not read it with read_file. To learn about it, use run_shell "
            "(e.g. `file PATH`, `xxd PATH | head`, or `iconv -f ENCODING -t UTF-8 PATH` "
            "for text in another encoding).",
        )
    f.seek(0)
    hasher = hashlib.sha256()
    window = _window(inp.offset, limit, inp.char_offset)
    size, last_byte = 0, b""
    while chunk := f.read(CHUNK_BYTES):
        if stop.is_set():
            raise ToolFailure(CANCELLED, "read_file was cancelled.")
        hasher.update(chunk)
        window.feed(chunk)
        size += len(chunk)
        last_byte = chunk[-1:]
    total = window.finish(size, last_byte)
    stamp = FileStamp.from_stat(st)
    return _View(window.out, total, window.segment, stamp=stamp, digest=hasher.hexdigest())


def spill_rows(
    reader: SpillReader, offset: int, limit: int, texts: list[str] | None = None
) -> Rows:
    """The numbered rows ``read_file(path, offset, limit)`` returns for a spill file: lines
    from ``offset``, at most ``limit`` (clipped to MAX_LINES) and MAX_WINDOW_CHARS in all, long
    lines cut, bytes that are not UTF-8 shown ``\\xNN`` and counted. The spill browser shows
    exactly these rows (``texts`` gets each row's text as decoded, its undecodable bytes as
    lone surrogates); only the window is read."""
    rows = Rows(MAX_WINDOW_CHARS)
    if offset > reader.lines:
        return rows
    for row in reader.rows(offset, min(limit, MAX_LINES), MAX_LINE_CHARS):
        if not rows.add(row.line, row.text, row.chars):
            break
        if texts is not None:
            texts.append(row.text)
    return rows


def _read_spill(reader: SpillReader, inp: ReadFileInput, limit: int) -> _View:
    """A window of a spill file through its index: never more than the window is read."""
    with reader:
        view = _View(Rows(MAX_WINDOW_CHARS), reader.lines, final_newline=reader.ends_with_newline)
        if inp.offset > reader.lines:
            return view
        if inp.char_offset:
            piece = reader.segment(inp.offset, inp.char_offset, SEGMENT_CHARS)
            view.segment = (piece.text, piece.line_chars)
            view.rows.last = inp.offset
            return view
        view.rows = spill_rows(reader, inp.offset, limit)
        return view


def _open(path: Path, where: str) -> BinaryIO:
    """The judged file, opened without following a symlink; only a regular file is opened (a
    FIFO would block the open)."""
    try:
        fd = open_regular(path)
    except NotRegularFile:
        raise ToolFailure(
            "not_a_file",
            f"{where} is not a regular file (a device, socket or pipe).",
            "Only regular files can be read. Use run_shell if you must inspect it.",
        ) from None
    return os.fdopen(fd, "rb")


def _image_bytes(path: Path, where: str) -> bytes:
    with _open(path, where) as f:
        return f.read(MAX_INPUT_BYTES + 1)


async def _read_image(real: Path, where: str, ctx: ToolContext) -> ToolOutput | None:
    """An image file as an image for a model that takes them (kept in the session's image
    store), else described; None when it is not an image after all (read as text)."""
    try:
        image = await asyncio.to_thread(lambda: prepare_image(_image_bytes(real, where), where))
    except NotAnImage:
        return None
    except ImageError as error:
        raise ToolFailure("bad_image", str(error), "Ask the user for a readable copy.") from None
    except OSError as exc:
        raise ToolFailure(
            "io_error", f"Cannot read {where}: {exc.strerror or exc}.", "Check the path."
        ) from exc
    ref = image.ref
    about = f"{ref.kind}, {ref.width}×{ref.height}, {human_size(ref.size)}"
    if ref.original:
        about += f"; resized from {ref.original}"
    data: dict[str, object] = {"path": str(real), "image": about}
    if not ctx.images.accepts:
        content = (
            f"[{where} is an image ({about}). This model does not accept images, so it cannot "
            "be shown to you: ask the user what it shows, or to switch to a model that reads "
            "images.]"
        )
        summary = f"image {ref.width}×{ref.height}, not shown (the model takes no images)"
        return ToolOutput(content, data=data, never_spill=True, summary=summary)
    kept = await ctx.images.keep(image)
    content = f"[image {where}: {about} — the image itself follows]"
    summary = f"image {ref.kind} {ref.width}×{ref.height}"
    return ToolOutput(content, data=data, never_spill=True, summary=summary, images=[kept])


def _read(
    path: Path,
    where: str,
    inp: ReadFileInput,
    limit: int,
    stop: threading.Event,
    files: FileAccess = LOCAL_FILES,
) -> _View:
    with _open(path, where) as f:
        reader = SpillReader.open(path, f.fileno())  # the index of the file opened
        if reader is None and files.editor:  # the disk's stamp, the editor's text
            st = os.fstat(f.fileno())
            text = io.BytesIO(files.read_text(path).encode("utf-8", errors="surrogateescape"))
            return _scan(text, where, inp, limit, stop, st)
        if reader is None:
            return _scan(f, where, inp, limit, stop)
        # SpillReader opens the file by name: it must have opened the file judged and opened
        # above, not one a symlink swapped in since.
        if not same_file(reader.fd, f.fileno()):
            reader.close()
            raise swapped(path, "the spill file opened by name is another file")
        return _read_spill(reader, inp, limit)


def _refuse_withheld(path: Path, shown_path: str, ctx: ToolContext) -> None:
    """Refuse a file whose content the read guard withholds (a ``read_file`` deny rule)."""
    why = ctx.reads.withheld(path)
    if why is not None:
        raise ToolFailure(
            "withheld",
            f"{shown_path} is withheld by {why}: its content cannot be read.",
            "Do not try to read it another way (a shell command, a copy, a link, another "
            "tool); work without it or ask the user for what you need from it.",
        )


def call_text(path: str, **args: int) -> str:
    """A read_file call as the footers write it: ``read_file(path="…", offset=…)``."""
    parts = [f"path={json.dumps(path)}", *(f"{k}={v}" for k, v in args.items())]
    return f"read_file({', '.join(parts)})"


def window_call(path: str, offset: int, limit: int = MAX_LINES) -> str:
    """The call that reads ``limit`` lines from ``offset`` (the default limit left out)."""
    limit = min(limit, MAX_LINES)
    return call_text(path, offset=offset, **({"limit": limit} if limit != MAX_LINES else {}))


def _next(inp: ReadFileInput, **args: int) -> str:
    return call_text(inp.path, **args)


def _end(view: _View) -> str:
    return "end of file" + (" (no newline at the end)" if view.final_newline is False else "")


def _rows_footer(inp: ReadFileInput, view: _View) -> str:
    rows, total = view.rows, view.total
    span = f"lines {inp.offset}-{rows.last} of {total}"
    if rows.last < total:
        capped = f" (output capped at {MAX_WINDOW_CHARS:,} chars)" if rows.capped else ""
        # The limit the model chose carries on.
        tail = f"{capped} — next: {window_call(inp.path, rows.last + 1, inp.limit)}"
    else:
        tail = f" — {_end(view)}"
    cut = ""
    if rows.cut:
        line, chars = rows.cut[0]
        resume = _next(inp, offset=line, char_offset=MAX_LINE_CHARS)
        if len(rows.cut) == 1:
            cut = f"; line {line} is cut at {MAX_LINE_CHARS:,} of {chars:,} chars — read on with "
        else:
            listed = ", ".join(str(n) for n, _ in rows.cut[:5])
            more = f" and {len(rows.cut) - 5} more" if len(rows.cut) > 5 else ""
            cut = (
                f"; lines {listed}{more} are cut at {MAX_LINE_CHARS:,} chars — read on in one "
                f"with the same call and offset=<line>, e.g. "
            )
        cut += resume
    return f"[{span}{tail}{cut}]"


def rows_footer(
    path: str, offset: int, rows: Rows, total: int, final_newline: bool, limit: int = MAX_LINES
) -> str:
    """The footer read_file writes under the rows of a spill window (``spill_rows``)."""
    view = _View(rows, total, final_newline=final_newline)
    footer = _rows_footer(ReadFileInput(path=path, offset=offset, limit=limit), view)
    return _noted(footer, rows.undecodable)


def segment_footer(
    path: str, line: int, char_offset: int, text: str, line_chars: int, total: int, final: bool
) -> str:
    """The footer read_file writes under ``read_file(path, offset=line, char_offset=…)`` of a
    spill (``text``: the characters read, undecodable bytes as lone surrogates)."""
    inp = ReadFileInput(path=path, offset=line, char_offset=char_offset)
    view = _View(Rows(MAX_WINDOW_CHARS), total, final_newline=final)
    return _noted(_segment_footer(inp, view, text, line_chars), escape_bytes(text)[1])


def _segment_footer(inp: ReadFileInput, view: _View, text: str, line_chars: int) -> str:
    end = inp.char_offset + len(text)
    span = f"line {inp.offset}, chars {inp.char_offset:,}-{end:,} of {line_chars:,}"
    if end < line_chars:
        return f"[{span} — next: {_next(inp, offset=inp.offset, char_offset=end)}]"
    if inp.offset < view.total:
        return f"[{span} (end of line) — next line: {_next(inp, offset=inp.offset + 1)}]"
    return f"[{span} (end of line) — {_end(view)}]"


def _undecodable_note(count: int) -> str:
    """The footer's word on bytes that are not valid UTF-8 (a file in another encoding, or
    damaged)."""
    return (
        f"; not valid UTF-8: {escaped_bytes(count)} — edit_file keeps such bytes as they "
        "are, but old_string cannot contain them"
    )


def _noted(footer: str, undecodable: int) -> str:
    """``footer`` with the word on ``undecodable`` bytes, when there are some."""
    return footer[:-1] + _undecodable_note(undecodable) + "]" if undecodable else footer


async def _call(inp: ReadFileInput, ctx: ToolContext) -> ToolOutput:
    path = ctx.resolve(inp.path)
    where = shown(path, ctx)
    real = resolve_target(inp.path, ctx)
    _refuse_withheld(real, where, ctx)
    if path != real:  # a rule naming a link, or a path through a linked folder
        _refuse_withheld(path, where, ctx)
    if real.is_dir():
        raise is_directory(path, ctx, "read_file")
    if not real.exists():
        raise not_found(path, ctx)
    if looks_like_image(real.name):
        image = await _read_image(real, where, ctx)
        if image is not None:
            return image
    limit = min(inp.limit, MAX_LINES)
    try:
        view = await in_thread(lambda stop: _read(real, where, inp, limit, stop, ctx.files))
    except PermissionError as exc:
        raise ToolFailure(
            "permission_denied",
            f"Cannot read {where}: permission denied.",
            "Pick another file or ask the user to make it readable.",
        ) from exc
    except OSError as exc:
        raise ToolFailure(
            "io_error", f"Cannot read {where}: {exc.strerror or exc}.", "Check the path."
        ) from exc
    total = view.total
    data: dict[str, object] = {
        "path": str(path),
        "first": inp.offset,
        "last": view.rows.last,
        "total_lines": total,
    }
    if view.final_newline is not None:
        data.update(spill=True, final_newline=view.final_newline)
    if view.stamp is not None:
        # FileStateCache keys by realpath, which raises if a symlink on the path is being
        # swapped; the read itself is done, and an unrecorded file only makes edit_file ask
        # for a fresh read.
        with contextlib.suppress(OSError):
            ctx.file_state.record(real, digest=view.digest, stamp=view.stamp)
    facts = ResultFacts(first=inp.offset, last=view.rows.last, total_lines=total)
    if total == 0 and inp.offset == 1:
        return ToolOutput(
            "[empty file: 0 lines]", data=data, never_spill=True, summary="empty file", facts=facts
        )
    if inp.offset > total:
        raise ToolFailure(
            "offset_out_of_range",
            f"offset {inp.offset} is past the end of {where}, which has {total} lines.",
            f"Call read_file again with an offset between 1 and {max(total, 1)}.",
        )
    if view.segment is not None:
        text, line_chars = view.segment
        if inp.char_offset >= line_chars:
            raise ToolFailure(
                "offset_out_of_range",
                f"char_offset {inp.char_offset} is past the end of line {inp.offset} of "
                f"{where}, which has {line_chars:,} chars.",
                f"Use a char_offset below {line_chars}, or read the next line with "
                f"offset={inp.offset + 1}.",
            )
        data.update(char_offset=inp.char_offset, line_chars=line_chars)
        shown_text, escaped = escape_bytes(text)
        footer = _noted(_segment_footer(inp, view, text, line_chars), escaped)
        if escaped:
            data["undecodable_bytes"] = escaped
        rows = [f"{inp.offset:>6}\t{shown_text}", footer]
        shown_chars = f"chars {inp.char_offset:,}–{inp.char_offset + len(text):,}"
        return ToolOutput(
            "\n".join(rows),
            data=data,
            never_spill=True,
            summary=f"line {inp.offset:,} {shown_chars} of {line_chars:,}",
            facts=facts,
        )
    if view.rows.cut:
        data["cut_lines"] = [line for line, _ in view.rows.cut]
    footer = _noted(_rows_footer(inp, view), view.rows.undecodable)
    if view.rows.undecodable:
        data["undecodable_bytes"] = view.rows.undecodable
    content = "\n".join([*view.rows.rows, footer])
    summary = f"lines {inp.offset:,}–{view.rows.last:,} of {total:,}"
    return ToolOutput(content, data=data, never_spill=True, summary=summary, facts=facts)


TOOL = Tool(
    name="read_file",
    description=DESCRIPTION,
    input_aliases=renamed(file_path="path"),  # Claude Code's field name
    call_aliases=(CallAlias("Read", claude_calls.from_read),),
    input_model=ReadFileInput,
    call=_call,
    meta=READ_ONLY_PATH_META,
    timeout=60.0,
)
