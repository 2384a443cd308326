"""The output budget of ``mcp serve``, and its spills as MCP resources (``spill://``).

A tool result longer than ``BudgetSettings.per_result_chars`` (50,000 characters) is not
sent whole: its full text (or the tool's exact bytes) is saved as a spill file, and the
client gets an excerpt (the head of a success, the tail of a failure), a pointer saying how
big the output is and how to read it, and a ``resource_link`` to it. read_file limits itself
and is never spilled.

The spills are resources of this server:

- ``resources/list`` lists the spills it wrote (newest first), each ``spill://<name>``
  (``<name>``: the spill file's name, ``<UTC time>-<tool>-<call id>-<token>.txt``);
- ``resources/templates/list`` gives the paged form, ``spill://<name>{?offset,limit,char_offset}``
  — read_file's window over the spill: ``offset`` its first line (1-based), ``limit`` lines
  (at most 2,000, and 100,000 characters), ``char_offset`` to read on in a line too long for
  one row; each page ends with a line giving the URI of the next;
- ``resources/read`` of ``spill://<name>`` is its first page.

What can be read is confined to this server's own spills: a name must be one this server
wrote (kept in memory; nothing else in the directory, however named, is ever read), the file
is opened relative to a descriptor of the spill directory without following a link, and
must be a regular file whose line index matches it. Anything else — another scheme, a path,
``..``, an escaped character, a name it did not write, a link — is "Resource not found"
(``-32602``, its URI in ``data``, as SEP-2164 says).

The spills live in a private directory of their own (``mkdtemp``, mode 0700), not in the
served tree, which the server never writes to; the newest ``MAX_SPILLS`` are kept, and the
directory is deleted when the server stops.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import stat
import tempfile
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final
from urllib.parse import parse_qsl

from agent_tui.core.browse.windows import SpillWindow, segment_of, window_of
from agent_tui.core.budget.config import BudgetSettings
from agent_tui.core.budget.excerpt import excerpt
from agent_tui.core.budget.raw import RawOutput
from agent_tui.core.budget.reader import SpillReader
from agent_tui.core.budget.store import SpillRecord, SpillStore, is_spill_name
from agent_tui.core.text.summary import plural
from agent_tui.core.tools.builtin.read_file import MAX_LINE_CHARS, MAX_LINES

SCHEME: Final = "spill://"
TEMPLATE: Final = "spill://{name}{?offset,limit,char_offset}"
MIME: Final = "text/plain"
MAX_SPILLS: Final = 100
"""Spills kept per server: past it the oldest is deleted (its resource is gone)."""
POINTER_LINES: Final = 200
"""The page size the pointer suggests."""
DIR_PREFIX: Final = "agent-tui-serve-spill-"
INVALID_PARAMS: Final = -32602
PARAMS: Final = ("offset", "limit", "char_offset")


class NotFound(Exception):
    """A resource URI that names nothing this server can read (the message says why)."""


@dataclass(frozen=True)
class Page:
    """Which part of a spill a URI asks for."""

    name: str
    offset: int = 1
    limit: int = MAX_LINES
    char_offset: int = 0


def uri_of(name: str, **query: int) -> str:
    params = "&".join(f"{key}={value}" for key, value in query.items())
    return f"{SCHEME}{name}" + (f"?{params}" if params else "")


def parse_uri(uri: str) -> Page:
    """The page ``uri`` asks for; ``NotFound`` for anything that is not ``spill://<a spill
    file name>`` with at most ``offset``, ``limit`` and ``char_offset`` (whole numbers)."""
    if not uri.startswith(SCHEME):
        raise NotFound(f"{uri!r} is not a spill:// URI; this server's resources are its spills")
    name, _, query = uri[len(SCHEME) :].partition("?")
    if not is_spill_name(name):  # no "/", "%", "." path parts: a bare file name or nothing
        raise NotFound(f"{name!r} is not the name of a spill file")
    values: dict[str, int] = {}
    for key, raw in parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query)):
        if key not in PARAMS or key in values:
            raise NotFound(f"unknown or repeated parameter {key!r} (known: {', '.join(PARAMS)})")
        if not raw.isdigit() or len(raw) > 12:
            raise NotFound(f"{key}={raw!r} is not a whole number")
        values[key] = int(raw)
    page = Page(name, **values)
    if page.offset < 1 or not 1 <= page.limit <= MAX_LINES:
        raise NotFound(f"offset must be 1 or more and limit 1 to {MAX_LINES}")
    return page


def resource_error(uri: str, why: str) -> Exception:
    """The JSON-RPC error for a resource that cannot be read (SEP-2164)."""
    from mcp.shared.exceptions import MCPError

    return MCPError(INVALID_PARAMS, f"Resource not found: {why}", {"uri": uri})


def _footer(name: str, window: SpillWindow) -> str:
    """Where this page is in the spill, and the URI of the next page."""
    where = f"{SCHEME}{name}: {window.span.replace('–', '-')}"
    if window.segment:
        if window.segment_end < window.line_chars:
            nxt = uri_of(name, offset=window.offset, char_offset=window.segment_end)
            return f"[{where} — next: {nxt}]"
        if window.offset < window.total:
            return f"[{where} (end of line) — next line: {uri_of(name, offset=window.offset + 1)}]"
        return f"[{where} (end of line) — end of output]"
    if window.empty:
        return f"[{where} — end of output]"
    parts = [f"[{where}"]
    if window.last < window.total:
        capped = " (page capped at 100,000 chars)" if window.capped else ""
        parts.append(f"{capped} — next: {uri_of(name, offset=window.last + 1, limit=window.limit)}")
    else:
        parts.append(" — end of output")
    for line, chars in window.cut[:3]:
        resume = uri_of(name, offset=line, char_offset=MAX_LINE_CHARS)
        parts.append(f"; line {line} is cut at {MAX_LINE_CHARS:,} of {chars:,} chars: {resume}")
    if len(window.cut) > 3:
        parts.append(f"; {len(window.cut) - 3} more lines are cut")
    return "".join(parts) + "]"


class ServeSpills:
    """The spills of one server: where they are, which it wrote, and reading them back."""

    def __init__(self, settings: BudgetSettings | None = None) -> None:
        self.settings = settings or BudgetSettings()
        self._store: SpillStore | None = None
        self._dir: Path | None = None
        self._records: OrderedDict[str, SpillRecord] = OrderedDict()
        self._lock = threading.Lock()
        self._calls = 0

    @property
    def directory(self) -> Path | None:
        """The private directory (None until the first spill)."""
        return self._dir

    def names(self) -> list[str]:
        with self._lock:
            return list(self._records)

    def _ensure_store(self) -> SpillStore:
        with self._lock:
            if self._store is None:
                self._dir = Path(tempfile.mkdtemp(prefix=DIR_PREFIX))
                # reached from its parent: the directory itself is never followed as a link
                self._store = SpillStore(self._dir, self._dir.parent, durable=False)
            return self._store

    def close(self) -> None:
        """Delete the directory and forget the spills (the server stopped)."""
        with self._lock:
            directory, store = self._dir, self._store
            self._dir, self._store = None, None
            self._records.clear()
        made = {directory, store.root if store is not None else None} - {None}
        for path in made:  # the store's root differs once a link made it use a fallback
            if path is not None and os.path.islink(path):
                os.unlink(path)  # a link put in its place: removed, never followed
            elif path is not None:
                shutil.rmtree(path, ignore_errors=True)

    # -- the budget -------------------------------------------------------------------------

    def over_budget(self, text: str) -> bool:
        return len(text) > self.settings.per_result_chars

    async def spill(
        self, tool: str, text: str, *, is_error: bool, raw: RawOutput | None, summary: str
    ) -> list[Any]:
        """The content blocks of a result too long to send: an excerpt with its pointer and a
        link to the spill (only the excerpt, and why, when saving failed)."""
        from mcp.types import ResourceLink, TextContent

        self._calls += 1
        call_id = f"serve_{self._calls}"
        cut = excerpt(text, self.settings.preview_chars, "tail" if is_error else "head")
        try:
            record = await asyncio.to_thread(self._save, tool, call_id, text, raw, summary)
        except OSError as exc:
            note = (
                f"[Output too large for one result ({len(text):,} chars); saving the full "
                f"output failed ({exc.strerror or exc}), so only this excerpt exists. To see "
                "more, narrow the call (a smaller path, a more specific pattern).]"
            )
            return [TextContent(type="text", text=f"{cut.text}\n{note}")]
        name = record.path.name
        first = cut.first_omitted_line or 1
        again = f"Do not call {tool} again to see it."
        pointer = (
            f"[Output too large for one result: only the excerpt above is shown. The full "
            f"output ({plural(record.chars, 'char')}, {plural(record.lines, 'line')}) is saved "
            f"byte for byte as this server's resource {SCHEME}{name}. Read the omitted part "
            f"with resources/read of {uri_of(name, offset=first, limit=POINTER_LINES)} and "
            f"page on with the URI each page ends with. {again}]"
        )
        link = ResourceLink(
            type="resource_link",
            uri=uri_of(name),
            name=name,
            title=f"The full output of {tool}",
            mime_type=MIME,
            size=record.bytes,
        )
        return [TextContent(type="text", text=f"{cut.text}\n{pointer}"), link]

    def _save(
        self, tool: str, call_id: str, text: str, raw: RawOutput | None, summary: str
    ) -> SpillRecord:
        store = self._ensure_store()
        if raw is not None:
            record = store.write_bytes(raw.chunks(), tool, call_id, summary=summary)
        else:
            record = store.write(text, tool, call_id, summary=summary)
        with self._lock:
            self._records[record.path.name] = record
            old = [self._records.popitem(last=False)[1] for _ in range(self._excess())]
        for gone in old:
            store.remove(gone.path)
        return record

    def _excess(self) -> int:
        return max(0, len(self._records) - MAX_SPILLS)

    # -- the resources ----------------------------------------------------------------------

    def resources(self) -> list[Any]:
        """``resources/list``: this server's spills, newest first."""
        from mcp.types import Resource

        with self._lock:
            records = list(reversed(self._records.values()))
        return [
            Resource(
                uri=uri_of(record.path.name),
                name=record.path.name,
                title=f"Output of {record.tool} ({plural(record.chars, 'char')}, "
                f"{plural(record.lines, 'line')})",
                description=(
                    f"The full output of {record.tool}"
                    + (f" {record.summary}" if record.summary else "")
                    + ", saved when it was too large for one result. Read it a page at a "
                    f"time: {TEMPLATE.replace('{name}', record.path.name)}."
                ),
                mime_type=MIME,
                size=record.bytes,
            )
            for record in records
        ]

    def templates(self) -> list[Any]:
        """``resources/templates/list``: the paged form of a spill."""
        from mcp.types import ResourceTemplate

        return [
            ResourceTemplate(
                uri_template=TEMPLATE,
                name="spill-page",
                title="A page of a spilled output",
                description=(
                    "Lines of one of this server's spills (resources/list names them) as "
                    f"read_file shows them: offset is the first line (1-based), limit the lines "
                    f"(at most {MAX_LINES:,}), char_offset reads on in a line too long for one "
                    "row. Each page ends with the URI of the next."
                ),
                mime_type=MIME,
            )
        ]

    async def read(self, uri: str) -> Any:
        """``resources/read``: one page (``resource_error`` when ``uri`` names nothing
        readable)."""
        from mcp.types import ReadResourceResult, TextResourceContents

        try:
            page = parse_uri(uri)
            text = await asyncio.to_thread(self._page, page)
        except NotFound as exc:
            raise resource_error(uri, str(exc)) from None
        return ReadResourceResult(
            contents=[TextResourceContents(uri=uri, mime_type=MIME, text=text)]
        )

    def _page(self, page: Page) -> str:
        with self._lock:
            known = page.name in self._records
            store = self._store
        if not known or store is None:
            raise NotFound(f"this server wrote no spill named {page.name!r}")
        try:  # as it is now: a link on the way is refused, and no fallback is made
            directory = store.dir.open_existing()
        except OSError:
            raise NotFound(f"the spill {page.name!r} is gone") from None
        try:
            fd = os.open(page.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=directory)
        except OSError:
            raise NotFound(f"the spill {page.name!r} is gone, or is not a file") from None
        finally:
            os.close(directory)
        try:  # the reader keeps a duplicate of ``fd``: this one is closed either way
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise NotFound(f"the spill {page.name!r} is not a regular file")
            reader = SpillReader.open(store.root / page.name, opened=fd)
        finally:
            os.close(fd)
        if reader is None:
            raise NotFound(f"the spill {page.name!r} changed since it was written")
        with reader:
            shown = uri_of(page.name)
            if page.char_offset:
                window = segment_of(reader, shown, page.offset, page.char_offset, page.limit)
            else:
                window = window_of(reader, shown, page.offset, page.limit)
        return "\n".join([*window.rows, _footer(page.name, window)])


def call_summary(arguments: dict[str, Any] | None) -> str:
    """A call's arguments in one short line, kept with its spill."""
    shown = json.dumps(arguments or {}, ensure_ascii=False)
    return shown if len(shown) <= 200 else shown[:200] + "…"
