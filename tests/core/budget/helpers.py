"""Reading a spill back the way a model does: read_file pages, then char windows of cut lines."""

from __future__ import annotations

import re
from pathlib import Path

from agent_tui.core.tools.base import ToolContext
from agent_tui.core.tools.builtin import read_file

_CUT = re.compile(r" \[… line cut: [\d,]+ more chars\]$")
_NEXT_CHAR = re.compile(r"next: read_file\(path=.*, offset=\d+, char_offset=(\d+)\)")


async def call_read(ctx: ToolContext, **arguments: object) -> read_file.ToolOutput:
    return await read_file.TOOL.call(read_file.ReadFileInput.model_validate(arguments), ctx)


async def rest_of_line(ctx: ToolContext, path: str, line: int, start: int) -> str:
    """Characters ``start..`` of ``line``, window by window as the footers say (as shown: a
    byte that is not UTF-8 as ``\\xNN``)."""
    parts: list[str] = []
    char = start
    while True:
        out = await call_read(ctx, path=path, offset=line, char_offset=char)
        row, footer = out.content.rsplit("\n", 1)
        parts.append(row.split("\t", 1)[1])
        if "(end of line)" in footer:
            return "".join(parts)
        found = _NEXT_CHAR.search(footer)
        assert found is not None, footer
        char = int(found[1])


async def read_back(ctx: ToolContext, path: str, limit: int = 2000) -> str:
    """The whole file as read_file shows it: pages of rows, cut lines completed (a byte that
    is not UTF-8 as ``\\xNN``)."""
    lines: list[str] = []
    offset = 1
    while True:
        out = await call_read(ctx, path=path, offset=offset, limit=limit)
        if out.content == "[empty file: 0 lines]":
            return ""
        *rows, footer = out.content.split("\n")
        cut = set(out.data.get("cut_lines", []))
        for row in rows:
            number, text = row.split("\t", 1)
            line = int(number)
            if line in cut:  # shown up to the row's limit, in characters: read on from there
                text = _CUT.sub("", text)
                text += await rest_of_line(ctx, path, line, read_file.MAX_LINE_CHARS)
            lines.append(text)
        if "end of file" in footer:
            break
        offset = out.data["last"] + 1
        more = f", limit={limit}" if limit != 2000 else ""
        assert f"offset={offset}{more})" in footer, footer  # the same window size on
    text = "\n".join(lines)
    return text + "\n" if out.data.get("final_newline") else text


def spill_files(root: Path) -> list[Path]:
    return sorted(p for p in (root / ".agent-spill").iterdir() if p.suffix == ".txt")
