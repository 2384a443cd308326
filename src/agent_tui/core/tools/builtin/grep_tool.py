"""grep: search file contents with a regular expression; file:line:text results."""

from __future__ import annotations

import re
import stat
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import Field

from agent_tui.core.tools.base import Tool, ToolContext, ToolInput, ToolOutput
from agent_tui.core.tools.builtin._paths import (
    READ_ONLY_PATH_META,
    SAMPLE_BYTES,
    in_thread,
    not_found,
    shown,
)
from agent_tui.core.tools.builtin._walk import SKIPPED_TEXT, glob_regex, walk_files
from agent_tui.core.tools.errors import ToolFailure

MAX_MATCHES = 200
MAX_LINE_CHARS = 300
MAX_FILE_BYTES = 20 << 20

DESCRIPTION = f"""\
Search file contents for a Python regular expression, line by line. Returns `file:line:text` \
for each matching line (paths relative to the working directory), at most {MAX_MATCHES} \
matches, each line cut at {MAX_LINE_CHARS} characters. Searches a single file or a directory \
tree; binary files, files over {MAX_FILE_BYTES >> 20} MB and these directories are skipped: \
{SKIPPED_TEXT}. Narrow with `glob` (e.g. "*.py") or a sub-directory `path`. Use glob to find \
files by name and read_file to see a match in context."""


class GrepInput(ToolInput):
    pattern: str = Field(
        min_length=1,
        description=r"Python regular expression (`re` syntax) searched in each line, e.g. "
        r"`def \w+_handler` or `TODO|FIXME`. Escape metacharacters to find literal text, "
        r"e.g. `print\(`.",
    )
    path: str = Field(
        default=".",
        description="File or directory to search. Default: the working directory.",
    )
    glob: str | None = Field(
        default=None,
        description='Only search files whose name matches this glob, e.g. "*.py" or '
        '"*.{ts,tsx}"; a glob containing "/" is matched against the path relative to `path`, '
        'e.g. "src/**/*.js". Default: all files.',
    )
    ignore_case: bool = Field(default=False, description="Match case-insensitively.")


@dataclass
class _Found:
    matches: list[tuple[Path, int, str]] = field(default_factory=list)
    more: bool = False
    searched: int = 0
    binary: int = 0
    large: int = 0


def _search_file(path: Path, regex: re.Pattern[str], found: _Found) -> None:
    try:
        st = path.stat()
        if not stat.S_ISREG(st.st_mode):
            return
        if st.st_size > MAX_FILE_BYTES:
            found.large += 1
            return
        with open(path, "rb") as f:
            if b"\0" in f.read(SAMPLE_BYTES):
                found.binary += 1
                return
            f.seek(0)
            found.searched += 1
            for number, raw in enumerate(f, 1):
                text = raw.decode("utf-8", errors="replace").rstrip("\r\n")
                if regex.search(text):
                    if len(found.matches) == MAX_MATCHES:
                        found.more = True
                        return
                    found.matches.append((path, number, text))
    except OSError:
        return


def _scan(
    root: Path,
    regex: re.Pattern[str],
    keep: Callable[[str], bool] | None,
    stop: threading.Event,
) -> _Found:
    found = _Found()
    files: Iterable[tuple[Path, str]] = (
        [(root, root.name)] if root.is_file() else walk_files(root, stop)
    )
    for path, rel in files:
        if found.more or stop.is_set():
            break
        if keep is None or keep(rel):
            _search_file(path, regex, found)
    return found


def _file_filter(pattern: str | None) -> Callable[[str], bool] | None:
    if not pattern:
        return None
    regex = glob_regex(pattern.removeprefix("./"))
    if "/" in pattern:
        return lambda rel: regex.fullmatch(rel) is not None
    return lambda rel: regex.fullmatch(rel.rsplit("/", 1)[-1]) is not None


def _cut(text: str) -> str:
    if len(text) <= MAX_LINE_CHARS:
        return text
    return f"{text[:MAX_LINE_CHARS]}… [+{len(text) - MAX_LINE_CHARS:,} chars]"


async def _call(inp: GrepInput, ctx: ToolContext) -> ToolOutput:
    try:
        regex = re.compile(inp.pattern, re.IGNORECASE if inp.ignore_case else 0)
    except re.error as exc:
        raise ToolFailure(
            "invalid_pattern",
            f"Invalid regular expression {inp.pattern!r}: {exc.msg} at position {exc.pos}.",
            "Fix the pattern (Python `re` syntax). To search for literal text, escape "
            r"metacharacters such as ( ) [ ] { } . * + ? | \ with a backslash.",
        ) from exc
    root = ctx.resolve(inp.path)
    if not root.exists():
        raise not_found(root, ctx, kind="file or directory")
    keep = _file_filter(inp.glob)
    found = await in_thread(lambda stop: _scan(root, regex, keep, stop))
    where = shown(root, ctx)
    skipped = []
    if found.binary:
        skipped.append(f"{found.binary} binary")
    if found.large:
        skipped.append(f"{found.large} over {MAX_FILE_BYTES >> 20} MB")
    skip_note = f"; skipped {', '.join(skipped)} file(s)" if skipped else ""
    data = {
        "pattern": inp.pattern,
        "path": str(root),
        "matches": len(found.matches),
        "truncated": found.more,
    }
    if not found.matches:
        return ToolOutput(
            f"No matches for {inp.pattern!r} in {where} "
            f"({found.searched} file(s) searched{skip_note}).",
            data=data,
        )
    lines = [f"{shown(path, ctx)}:{number}:{_cut(text)}" for path, number, text in found.matches]
    if found.more:
        lines.append(
            f"[only the first {MAX_MATCHES} matches are shown; there are more. Narrow the "
            'search: a more specific pattern, a sub-directory or file as path, or glob="*.py"]'
        )
    else:
        files = len({path for path, _, _ in found.matches})
        lines.append(
            f"[{len(found.matches)} match(es) in {files} file(s); "
            f"{found.searched} file(s) searched{skip_note}]"
        )
    return ToolOutput("\n".join(lines), data=data)


TOOL = Tool(
    name="grep",
    description=DESCRIPTION,
    input_model=GrepInput,
    call=_call,
    meta=READ_ONLY_PATH_META,
    timeout=60.0,
)
