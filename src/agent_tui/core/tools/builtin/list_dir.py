"""list_dir: the entries of one directory, directories first."""

from __future__ import annotations

import os
import stat
import threading
from dataclasses import dataclass
from pathlib import Path

from pydantic import Field

from agent_tui.core.calls import ResultFacts
from agent_tui.core.text.summary import plural, withheld_note
from agent_tui.core.tools import claude_calls
from agent_tui.core.tools.aliases import CallAlias
from agent_tui.core.tools.base import Tool, ToolContext, ToolInput, ToolOutput
from agent_tui.core.tools.errors import ToolFailure
from agent_tui.core.tools.files.paths import READ_ONLY_PATH_META, in_thread, not_found, shown
from agent_tui.core.tools.files.withheld import Withheld, refuse_if_withheld

MAX_ENTRIES = 1000

DESCRIPTION = f"""\
\
List one directory (not recursive), directories (ending `/`) first, links with their \
target; `[withheld: ...]` entries cannot be read. At most {MAX_ENTRIES:,} entries."""


class ListDirInput(ToolInput):
    path: str = Field(default=".", description="Directory to list.")


@dataclass
class _Entry:
    kind: str
    size: int | None
    name: str
    withheld: str | None = None
    """Why the entry's content (where it resolves to) is withheld: it is listed all the same,
    a name is not content, but marked so that the model does not try to read it."""

    def line(self) -> str:
        mark = f"  [withheld: {self.withheld}]" if self.withheld else ""
        return f"{self.kind:<5}{_human(self.size):>8}  {self.name}{mark}"


def _human(size: int | None) -> str:
    if size is None:
        return "-"
    value = float(size)
    for unit in ("", "K", "M", "G", "T"):
        if value < 1024 or unit == "T":
            return f"{int(value)}" if unit == "" else f"{value:.1f}{unit}"
        value /= 1024
    return str(size)


def _entry(item: os.DirEntry[str]) -> _Entry:
    try:
        if item.is_symlink():
            try:
                target = os.readlink(item.path)
            except OSError:
                target = "?"
            return _Entry("link", None, f"{item.name} -> {target}")
        if item.is_dir(follow_symlinks=False):
            return _Entry("dir", None, item.name + "/")
        st = item.stat(follow_symlinks=False)
        kind = "file" if stat.S_ISREG(st.st_mode) else "other"
        return _Entry(kind, st.st_size, item.name)
    except OSError:
        return _Entry("?", None, item.name)


def _list(path: Path, withheld: Withheld, stop: threading.Event) -> tuple[list[_Entry], int]:
    with os.scandir(path) as it:
        names = sorted(it, key=lambda e: (not e.is_dir(follow_symlinks=False), e.name))
    entries: list[_Entry] = []
    for item in names[:MAX_ENTRIES]:
        if stop.is_set():
            break
        entry = _entry(item)
        entry.withheld = withheld.reason(Path(item.path))
        entries.append(entry)
    return entries, len(names)


async def _call(inp: ListDirInput, ctx: ToolContext) -> ToolOutput:
    path = ctx.resolve(inp.path)
    where = shown(path, ctx)
    if not path.exists():
        raise not_found(path, ctx, kind="directory")
    if not path.is_dir():
        raise ToolFailure(
            "not_a_directory",
            f"{where} is a file, not a directory.",
            f"Use read_file on {where} to see its content, or list_dir on its parent.",
        )
    refuse_if_withheld(path, ctx, "it cannot be listed")
    withheld = Withheld(ctx.reads)
    try:
        entries, total = await in_thread(lambda stop: _list(path, withheld, stop))
    except PermissionError as exc:
        raise ToolFailure(
            "permission_denied",
            f"Cannot list {where}: permission denied.",
            "List another directory.",
        ) from exc
    data = {"path": str(path), "count": total, "withheld": withheld.total}
    facts = ResultFacts(entries=total, withheld=withheld.total)
    summary = (plural(total, "entry", "entries") if total else "empty") + withheld_note(
        withheld.total
    )
    if not entries:
        return ToolOutput(f"{where}/ is empty.", data=data, summary=summary, facts=facts)
    lines = [entry.line() for entry in entries]
    if total > len(entries):
        lines.append(
            f"[{len(entries):,} of {total:,} entries shown — {total - len(entries):,} more not "
            "shown; use glob with a pattern to find specific files]"
        )
    else:
        lines.append(f"[{total} entr{'ies' if total != 1 else 'y'} in {where}/]")
    return ToolOutput("\n".join(lines), data=data, summary=summary, facts=facts)


TOOL = Tool(
    name="list_dir",
    call_aliases=(CallAlias("LS", claude_calls.from_ls),),
    description=DESCRIPTION,
    input_model=ListDirInput,
    call=_call,
    meta=READ_ONLY_PATH_META,
    timeout=60.0,
)
