"""search_files: find files whose name or path contains a substring (served by ``mcp serve``).

Read-only and cheap: it lists paths, never contents, case-insensitively, skipping the usual
VCS, dependency and cache directories like glob and grep do. A file the read guard withholds
(``ctx.reads``: a ``read_file`` deny or ask rule, or, under ``mcp serve``, a symlink leading out
of the served directory) is not listed: its name alone can tell what it holds (``.env``,
``id_rsa``), and a listed name invites a read that would be refused anyway. Only their count
is reported, so the model knows the listing is incomplete and why.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import Field

from agent_tui.core.tools.base import Tool, ToolContext, ToolInput, ToolOutput
from agent_tui.core.tools.errors import ToolFailure
from agent_tui.core.tools.files.paths import READ_ONLY_PATH_META, in_thread, not_found, shown
from agent_tui.core.tools.files.walk import SKIPPED_TEXT, walk_files
from agent_tui.core.tools.reads import ReadGuard

MAX_RESULTS = 200

DESCRIPTION = f"""\
Find files whose name or relative path contains `query` (case-insensitive), e.g. `config` \
or `src/utils`. Returns file paths relative to the working directory, files whose name \
matches first, at most {MAX_RESULTS}. Read-only: lists paths, never contents (use read_file \
for that). Skips: {SKIPPED_TEXT}."""


class SearchFilesInput(ToolInput):
    query: str = Field(min_length=1, description="Substring of the file name or path to find.")
    path: str = Field(default=".", description="Directory to search in. Default: the root.")


@dataclass
class _Found:
    paths: list[Path] = field(default_factory=list)
    total: int = 0
    withheld: int = 0
    why: str | None = None
    """The reason the first withheld file was withheld."""


def _scan(base: Path, query: str, reads: ReadGuard, stop: threading.Event) -> _Found:
    needle = query.lower()
    by_name: list[Path] = []
    by_path: list[Path] = []
    found = _Found()
    for path, rel in walk_files(base, stop):
        if needle in path.name.lower():
            bucket = by_name
        elif needle in rel.lower():
            bucket = by_path
        else:
            continue
        why = reads.withheld(Path(os.path.realpath(path)))
        if why is not None:
            found.withheld += 1
            found.why = found.why or why
            continue
        bucket.append(path)
    matches = by_name + by_path
    found.paths, found.total = matches[:MAX_RESULTS], len(matches)
    return found


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
    found = await in_thread(lambda stop: _scan(root, inp.query, ctx.reads, stop))
    data = {
        "query": inp.query,
        "path": str(root),
        "count": found.total,
        "withheld": found.withheld,
    }
    withheld = ""
    if found.withheld:
        plural = "s" if found.withheld != 1 else ""
        more = "more " if found.paths else ""
        withheld = (
            f"[{found.withheld} {more}matching file{plural} withheld, not listed "
            f"({'e.g. ' if plural else ''}{found.why}); do not try to reach "
            f"{'them' if plural else 'it'} another way]"
        )
    if not found.paths:
        text = f"No file name or path under {shown(root, ctx)} contains {inp.query!r}."
        return ToolOutput(f"{text}\n{withheld}" if withheld else text, data=data)
    lines = [shown(path, ctx) for path in found.paths]
    if found.total > len(found.paths):
        lines.append(
            f"[{len(found.paths)} of {found.total:,} matches shown; narrow the query or the path]"
        )
    else:
        lines.append(f"[{found.total} matching file{'s' if found.total != 1 else ''}]")
    if withheld:
        lines.append(withheld)
    return ToolOutput("\n".join(lines), data=data)


TOOL = Tool(
    name="search_files",
    description=DESCRIPTION,
    input_model=SearchFilesInput,
    call=_call,
    meta=READ_ONLY_PATH_META,
    timeout=60.0,
)
