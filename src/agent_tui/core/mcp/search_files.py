"""search_files: find files whose name or path contains a substring (served by ``mcp serve``).

Read-only and cheap: it lists paths, never contents, case-insensitively, skipping the usual
VCS, dependency and cache directories like glob and grep do.
"""

from __future__ import annotations

import threading
from pathlib import Path

from pydantic import Field

from agent_tui.core.tools.base import Tool, ToolContext, ToolInput, ToolOutput
from agent_tui.core.tools.builtin._paths import READ_ONLY_PATH_META, in_thread, not_found, shown
from agent_tui.core.tools.builtin._walk import SKIPPED_TEXT, walk_files
from agent_tui.core.tools.errors import ToolFailure

MAX_RESULTS = 200

DESCRIPTION = f"""\
Find files whose name or relative path contains `query` (case-insensitive), e.g. `config` \
or `src/utils`. Returns file paths relative to the working directory, files whose name \
matches first, at most {MAX_RESULTS}. Read-only: lists paths, never contents (use read_file \
for that). Skips: {SKIPPED_TEXT}."""


class SearchFilesInput(ToolInput):
    query: str = Field(min_length=1, description="Substring of the file name or path to find.")
    path: str = Field(default=".", description="Directory to search in. Default: the root.")


def _scan(base: Path, query: str, stop: threading.Event) -> tuple[list[Path], int]:
    needle = query.lower()
    by_name: list[Path] = []
    by_path: list[Path] = []
    for path, rel in walk_files(base, stop):
        if needle in path.name.lower():
            by_name.append(path)
        elif needle in rel.lower():
            by_path.append(path)
    found = by_name + by_path
    return found[:MAX_RESULTS], len(found)


async def _call(inp: SearchFilesInput, ctx: ToolContext) -> ToolOutput:
    root = ctx.resolve(inp.path)
    if not root.exists():
        raise not_found(root, ctx, kind="directory")
    if not root.is_dir():
        raise ToolFailure(
            "not_a_directory",
            f"{shown(root, ctx)} is a file, not a directory to search in.",
            "Pass a directory as path.",
        )
    found, total = await in_thread(lambda stop: _scan(root, inp.query, stop))
    data = {"query": inp.query, "path": str(root), "count": total}
    if not found:
        return ToolOutput(
            f"No file name or path under {shown(root, ctx)} contains {inp.query!r}.", data=data
        )
    lines = [shown(path, ctx) for path in found]
    if total > len(found):
        lines.append(f"[{len(found)} of {total:,} matches shown; narrow the query or the path]")
    else:
        lines.append(f"[{total} matching file{'s' if total != 1 else ''}]")
    return ToolOutput("\n".join(lines), data=data)


TOOL = Tool(
    name="search_files",
    description=DESCRIPTION,
    input_model=SearchFilesInput,
    call=_call,
    meta=READ_ONLY_PATH_META,
    timeout=60.0,
)
