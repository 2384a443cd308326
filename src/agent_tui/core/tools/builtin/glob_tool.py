"""glob: find files by name pattern, newest first."""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

from pydantic import Field

from agent_tui.core.calls import ResultFacts
from agent_tui.core.text.summary import plural, withheld_note
from agent_tui.core.tools import claude_calls
from agent_tui.core.tools.aliases import CallAlias
from agent_tui.core.tools.base import Tool, ToolContext, ToolInput, ToolOutput
from agent_tui.core.tools.errors import ToolFailure
from agent_tui.core.tools.files.paths import READ_ONLY_PATH_META, in_thread, not_found, shown
from agent_tui.core.tools.files.walk import (
    IGNORE_TEXT,
    SKIPPED_TEXT,
    Ignored,
    expand_braces,
    glob_regex,
    guarded,
    has_magic,
    walk_files,
)
from agent_tui.core.tools.files.withheld import Withheld, refuse_if_withheld
from agent_tui.core.workspace.globs import split_segments

MAX_RESULTS = 500

DESCRIPTION = f"""\
\
Find files by path pattern (`*` `?` in one level, `**/` any levels, `[abc]`, `[!abc]`, \
`{{a,b}}`). Returns paths relative to the working directory, newest first, at most \
{MAX_RESULTS}. {IGNORE_TEXT}"""


class GlobInput(ToolInput):
    pattern: str = Field(
        min_length=1,
        description='"**/*.py" at any depth, "*.md" directly in `path`.',
    )
    path: str = Field(default=".", description="Directory to search.")
    include_ignored: bool = Field(default=False, description="Also list ignored files.")


def _split(base: Path, pattern: str) -> tuple[Path, str]:
    """Move the pattern's leading literal directories into the base: less to walk."""
    if pattern.startswith("/"):
        base, pattern = Path("/"), pattern.lstrip("/")
    segments = [s for s in pattern.split("/") if s not in ("", ".")]
    while len(segments) > 1 and not has_magic(segments[0]):
        base, segments = base / segments[0], segments[1:]
    return base, "/".join(segments)


def _scan(
    base: Path,
    pattern: str,
    withheld: Withheld,
    stop: threading.Event,
    ignored: Ignored | None = None,
) -> list[tuple[float, Path]]:
    regex = glob_regex(pattern)
    spans = any(s == "**" for alt in expand_braces(pattern) for s in split_segments(alt))
    depth = None if spans else pattern.count("/")  # no "**" level: no deeper than its "/"s
    if ignored is not None:
        ignored.wanted = lambda rel: regex.fullmatch(rel) is not None
    found: list[tuple[float, Path]] = []
    for path, rel in walk_files(base, stop, depth, ignored):
        if regex.fullmatch(rel) and withheld.reason(path) is None:
            try:
                mtime = path.stat().st_mtime
            except OSError:
                mtime = 0.0
            found.append((mtime, path))
    found.sort(key=lambda item: (-item[0], item[1]))
    return found


async def _call(inp: GlobInput, ctx: ToolContext) -> ToolOutput:
    root = ctx.resolve(inp.path)
    if not root.exists():
        raise not_found(root, ctx, kind="directory")
    if not root.is_dir():
        raise ToolFailure(
            "not_a_directory",
            f"{shown(root, ctx)} is a file, not a directory to search in.",
            "Pass a directory as path (or read the file with read_file).",
        )
    refuse_if_withheld(root, ctx, "it cannot be searched")
    base, pattern = _split(root, inp.pattern)
    if not pattern or ".." in pattern.split("/"):
        raise ToolFailure(
            "invalid_pattern",
            f"The pattern {inp.pattern!r} has no file name part or uses '..' after a wildcard.",
            'Give a pattern such as "**/*.py", and put directories outside the search in `path`.',
        )
    found: list[tuple[float, Path]] = []
    withheld = Withheld(ctx.reads)
    ignored = None if inp.include_ignored else Ignored(ctx.cwd, guarded(ctx))
    if base.is_dir():
        found = await in_thread(lambda stop: _scan(base, pattern, withheld, stop, ignored))
    lines = [shown(path, ctx) for _, path in found[:MAX_RESULTS]]
    where = shown(root, ctx)
    data = {
        "pattern": inp.pattern,
        "path": str(root),
        "count": len(found),
        "withheld": withheld.total,
        "ignored": ignored.files if ignored is not None else 0,
    }
    note = f"; {withheld.note()}, not listed" if withheld.total else ""
    if ignored is not None and ignored.files:
        note += "; " + ignored.note("lists", noun="matching file")
    facts = ResultFacts(files=len(found), withheld=withheld.total)
    summary = (plural(len(found), "file") if found else "no files") + withheld_note(withheld.total)
    if not found:
        return ToolOutput(
            f"No files match {inp.pattern!r} in {where} (skipped: {SKIPPED_TEXT}{note}).",
            data=data,
            summary=summary,
            facts=facts,
        )
    if len(found) > MAX_RESULTS:
        lines.append(
            f"[{MAX_RESULTS} of {len(found):,} matching files shown, newest first — "
            f"{len(found) - MAX_RESULTS:,} more not shown; narrow the pattern or the path{note}]"
        )
    else:
        many = "s" if len(found) != 1 else ""
        lines.append(f"[{len(found)} matching file{many}, newest first{note}]")
    return ToolOutput("\n".join(lines), data=data, summary=summary, facts=facts)


def searched(arguments: dict[str, Any]) -> str | None:
    """The directory a call searches (``path`` with the pattern's leading literal
    directories: ``/home/u/.ssh/*`` searches ``/home/u/.ssh``), what the permission rules
    judge; None without a usable pattern."""
    pattern, path = arguments.get("pattern"), arguments.get("path") or "."
    if not isinstance(pattern, str) or not pattern or not isinstance(path, str):
        return None
    base, _ = _split(Path(path), pattern)
    return str(base)


TOOL = Tool(
    name="glob",
    call_aliases=(CallAlias("Glob", claude_calls.from_glob),),
    description=DESCRIPTION,
    input_model=GlobInput,
    call=_call,
    meta=replace(READ_ONLY_PATH_META, rule_path=searched),
    timeout=60.0,
)
