"""read_file: a window of a text file as numbered lines, streamed, with a footer to continue."""

from __future__ import annotations

import codecs
import hashlib
import json
import os
import stat
import threading
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import Field

from agent_tui.core.tools.base import Tool, ToolContext, ToolInput, ToolMeta, ToolOutput
from agent_tui.core.tools.builtin._paths import (
    SAMPLE_BYTES,
    in_thread,
    is_directory,
    looks_binary,
    not_found,
    shown,
)
from agent_tui.core.tools.errors import CANCELLED, ToolFailure
from agent_tui.core.tools.file_state import FileStamp

MAX_LINES = 2000
MAX_LINE_CHARS = 2000
MAX_WINDOW_CHARS = 100_000
CHUNK_BYTES = 1 << 20

DESCRIPTION = f"""\
Read a text file. Returns numbered lines like `cat -n` (line number, tab, text) and a footer \
with the file's total line count; when there is more, the footer gives the offset to continue \
from. Returns at most {MAX_LINES:,} lines (and about {MAX_WINDOW_CHARS // 1000} KB) per call; \
lines longer than {MAX_LINE_CHARS:,} characters are cut with a marker. Use offset/limit to page \
through large files or to read spilled tool output. Read a file before editing it: edit_file \
refuses files you have not read. The line numbers and tab are not part of the file; do not \
copy them into edit_file's old_string. Binary files and directories are refused (use list_dir \
for directories)."""


class ReadFileInput(ToolInput):
    path: str = Field(
        description="Path of the file to read, absolute or relative to the working directory."
    )
    offset: int = Field(
        default=1,
        ge=1,
        description="1-based line number to start reading at. Default 1. To continue a long "
        "file, pass the `next` offset printed in the previous footer.",
    )
    limit: int = Field(
        default=MAX_LINES,
        ge=1,
        description=f"Maximum number of lines to return. Default and maximum {MAX_LINES}.",
    )


@dataclass
class _Window:
    """Collects the numbered lines of the window [offset, offset + limit) while streaming."""

    offset: int
    stop_at: int
    line_no: int = 1
    rows: list[str] = field(default_factory=list)
    chars: int = 0
    last: int = 0
    capped: bool = False
    _decoder: codecs.IncrementalDecoder | None = None
    _parts: list[str] = field(default_factory=list)
    _kept: int = 0
    _cut: int = 0
    _last_char: str = ""

    def _in_window(self) -> bool:
        return self.offset <= self.line_no <= self.stop_at and not self.capped

    def feed(self, chunk: bytes) -> None:
        pos, size = 0, len(chunk)
        while pos < size:
            if not self._in_window():
                if self.line_no < self.offset:  # skip to the window without decoding
                    need = self.offset - self.line_no
                    if chunk.count(b"\n", pos) < need:
                        self.line_no += chunk.count(b"\n", pos)
                        return
                    for _ in range(need):
                        pos = chunk.index(b"\n", pos) + 1
                    self.line_no += need
                    continue
                self.line_no += chunk.count(b"\n", pos)  # past the window: only count
                return
            newline = chunk.find(b"\n", pos)
            self._take(chunk[pos : size if newline == -1 else newline])
            if newline == -1:
                return
            self._end_line()
            pos = newline + 1

    def _take(self, piece: bytes, final: bool = False) -> None:
        if self._decoder is None:
            self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
            self._parts, self._kept, self._cut, self._last_char = [], 0, 0, ""
        text = self._decoder.decode(piece, final)
        if not text:
            return
        room = MAX_LINE_CHARS - self._kept
        if room > 0:
            self._parts.append(text[:room])
            self._kept += min(room, len(text))
        self._cut += max(0, len(text) - room)
        self._last_char = text[-1]

    def _end_line(self) -> None:
        self._take(b"", final=True)
        text = "".join(self._parts)
        if self._last_char == "\r":  # a CRLF line ending is not part of the text
            if self._cut:
                self._cut -= 1
            else:
                text = text[:-1]
        if self._cut:
            text += f" [… line cut: {self._cut:,} more chars]"
        row = f"{self.line_no:>6}\t{text}"
        if self.rows and self.chars + len(row) + 1 > MAX_WINDOW_CHARS:
            self.capped = True
        else:
            self.rows.append(row)
            self.chars += len(row) + 1
            self.last = self.line_no
        self._decoder = None
        self.line_no += 1

    def finish(self, size: int, last_byte: bytes) -> int:
        """Close the last line; return the file's total line count."""
        total = self.line_no - 1 if size == 0 or last_byte == b"\n" else self.line_no
        if self._decoder is not None:
            self._end_line()
        return total


@dataclass
class _Result:
    window: _Window
    total: int
    stamp: FileStamp
    digest: str


def _scan(path: Path, where: str, offset: int, limit: int, stop: threading.Event) -> _Result:
    if not stat.S_ISREG(os.stat(path).st_mode):  # before open(): a FIFO would block it
        raise ToolFailure(
            "not_a_file",
            f"{where} is not a regular file (a device, socket or pipe).",
            "Only regular files can be read. Use run_shell if you must inspect it.",
        )
    with open(path, "rb") as f:
        st = os.fstat(f.fileno())
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
        window = _Window(offset=offset, stop_at=offset + limit - 1)
        size, last_byte = 0, b""
        while chunk := f.read(CHUNK_BYTES):
            if stop.is_set():
                raise ToolFailure(CANCELLED, "read_file was cancelled.")
            hasher.update(chunk)
            window.feed(chunk)
            size += len(chunk)
            last_byte = chunk[-1:]
        total = window.finish(size, last_byte)
    return _Result(window, total, FileStamp.from_stat(st), hasher.hexdigest())


async def _call(inp: ReadFileInput, ctx: ToolContext) -> ToolOutput:
    path = ctx.resolve(inp.path)
    where = shown(path, ctx)
    if path.is_dir():
        raise is_directory(path, ctx, "read_file")
    if not path.exists():
        raise not_found(path, ctx)
    limit = min(inp.limit, MAX_LINES)
    try:
        result = await in_thread(lambda stop: _scan(path, where, inp.offset, limit, stop))
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
    window, total = result.window, result.total
    data = {"path": str(path), "first": inp.offset, "last": window.last, "total_lines": total}
    if total == 0 and inp.offset == 1:
        ctx.file_state.record(path, digest=result.digest, stamp=result.stamp)
        return ToolOutput("[empty file: 0 lines]", data=data, never_spill=True)
    if inp.offset > total:
        raise ToolFailure(
            "offset_out_of_range",
            f"offset {inp.offset} is past the end of {where}, which has {total} lines.",
            f"Call read_file again with an offset between 1 and {max(total, 1)}.",
        )
    ctx.file_state.record(path, digest=result.digest, stamp=result.stamp)
    span = f"lines {inp.offset}-{window.last} of {total}"
    if window.last < total:
        capped = f" (output capped at {MAX_WINDOW_CHARS:,} chars)" if window.capped else ""
        footer = (
            f"[{span}{capped} — next: read_file(path={json.dumps(inp.path)}, "
            f"offset={window.last + 1})]"
        )
    else:
        footer = f"[{span} — end of file]"
    content = "\n".join([*window.rows, footer])
    return ToolOutput(content, data=data, never_spill=True)


TOOL = Tool(
    name="read_file",
    description=DESCRIPTION,
    input_model=ReadFileInput,
    call=_call,
    meta=ToolMeta(read_only=True, concurrency_safe=True),
    timeout=60.0,
)
