"""The editor's file system as a session's ``FileAccess`` (``core.tools.file_access``): when
the client advertises both ``fs.readTextFile`` and ``fs.writeTextFile``, the file tools read
and write through ``fs/read_text_file`` and ``fs/write_text_file``, so the editor's unsaved
buffers are what the model reads and edits, and each change shows in the editor.

Only the content moves: the tools judge, open and check the path on disk first (outside the
workspace, protected, denied, not read yet, changed since: refused before the editor hears of
the file), and the checkpoint keeps what the editor held. A client with only one of the two
methods gets neither: reading the buffer and writing the disk would edit a text the editor
does not show.

The tools call from worker threads; each call is sent on the event loop and waited for there,
bounded: ``cancel`` (the turn's Esc) ends every wait, and no wait outlasts ``WAIT_SECONDS``.
An error answer, a closed connection or an end of waiting is an ``AccessFailed`` that says
why, which the tool reports as its error (nothing written).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from acp import RequestError
from acp.schema import ClientCapabilities

from agent_tui.acp.updates import MAX_DIFF_BYTES, FileEdit, read_text
from agent_tui.core.tools.file_access import AccessFailed

if TYPE_CHECKING:
    from acp.interfaces import Client

T = TypeVar("T")
KEPT = 16
"""Texts kept for diffs (see ``EditorFiles``): a diff needs only the last read and write."""
WAIT_SECONDS = 120.0
"""The longest a tool waits for the editor's answer (a cancelled turn stops it sooner)."""
log = logging.getLogger(__name__)


def wanted(capabilities: ClientCapabilities) -> bool:
    """Whether the client reads and writes text files for us (both methods advertised)."""
    fs = capabilities.fs
    return bool(fs is not None and fs.read_text_file and fs.write_text_file)


def _why(exc: BaseException) -> str:
    if isinstance(exc, RequestError):
        data = exc.data
        if isinstance(data, dict):
            said = data.get("message") or data.get("details") or data.get("error")
            if said:
                return str(said)
        return str(data) if data else str(exc)
    return str(exc) or type(exc).__name__


class EditorFiles:
    """``FileAccess`` through the client of one session (see the module)."""

    editor = True

    def __init__(self, conn: Client, session_id: str, loop: asyncio.AbstractEventLoop) -> None:
        self.conn = conn
        self.session_id = session_id
        self.loop = loop
        self._pending: set[concurrent.futures.Future[Any]] = set()
        self._lock = threading.Lock()
        self._read: OrderedDict[str, str | None] = OrderedDict()
        """The last texts read from the editor, by path (the "before" of a write's diff: an
        edit reads its file just before it writes it; None: too big for a diff); at most
        ``KEPT`` of them."""
        self._written: OrderedDict[str, tuple[str | None, str]] = OrderedDict()
        """The last paths written: (the text read before, the text written), for the call's
        diff (``take_written``); at most ``KEPT``."""

    def read_text(self, path: Path) -> str:
        async def read() -> str:
            reply = await self.conn.read_text_file(session_id=self.session_id, path=str(path))
            return reply.content

        text = self._wait(read, f"read {path}")
        with self._lock:
            _keep(self._read, str(path), text if len(text) <= MAX_DIFF_BYTES else None)
        return text

    def write_text(self, path: Path, text: str) -> None:
        async def write() -> None:
            await self.conn.write_text_file(
                session_id=self.session_id, path=str(path), content=text
            )

        self._wait(write, f"write {path}")
        with self._lock:
            read = str(path) in self._read
            before = self._read.pop(str(path), None)
            self._written.pop(str(path), None)
            if len(text) <= MAX_DIFF_BYTES and (before is not None or not read):
                _keep(self._written, str(path), (before, text))  # else: no diff

    def take_written(self, path: str) -> tuple[str | None, str] | None:
        """(the text read before, the text written) of the last write of ``path`` (a real
        path), once; None: not written since."""
        with self._lock:
            return self._written.pop(path, None)

    def cancel(self) -> None:
        """End every wait (the turn was cancelled): each tool waiting fails."""
        with self._lock:
            pending = list(self._pending)
        for future in pending:
            future.cancel()

    def _wait(self, call: Callable[[], Awaitable[T]], what: str) -> T:
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self.loop:  # waiting here would stop the loop that must answer
            raise AccessFailed(f"cannot {what}: asked from the event loop")

        async def ask() -> T:
            return await call()

        future = asyncio.run_coroutine_threadsafe(ask(), self.loop)
        with self._lock:
            self._pending.add(future)
        try:
            return future.result(timeout=WAIT_SECONDS)
        except concurrent.futures.CancelledError:
            raise AccessFailed(f"did not {what}: the turn was cancelled") from None
        except TimeoutError:
            future.cancel()
            raise AccessFailed(
                f"did not {what}: the editor did not answer in {WAIT_SECONDS:.0f} s"
            ) from None
        except Exception as exc:
            raise AccessFailed(f"the editor could not {what}: {_why(exc)}") from exc
        finally:
            with self._lock:
                self._pending.discard(future)


async def before_edit(files: EditorFiles | None, path: Path) -> str | None:
    """An edit call's file before it runs, for its diff: read from disk when the session has
    no editor files; with them, None for now (the editor hears of no file before the call is
    allowed: ``after_edit`` gets the text the call itself read)."""
    return None if files is not None else await asyncio.to_thread(read_text, path)


async def after_edit(files: EditorFiles | None, edit: FileEdit) -> str | None:
    """An edit call's file after it ran, for its diff (``edit.before`` set to what the call
    read from the editor); None: no diff (not written, too big)."""
    if files is None:
        return await asyncio.to_thread(read_text, edit.path)
    real = await asyncio.to_thread(os.path.realpath, edit.path)
    written = files.take_written(real)
    if written is None:
        return None
    before, after = written
    edit.before = before
    return after


def _keep(kept: OrderedDict[str, T], key: str, value: T) -> None:
    """``kept[key] = value`` as the newest, the oldest dropped past ``KEPT``."""
    kept.pop(key, None)
    kept[key] = value
    while len(kept) > KEPT:
        kept.popitem(last=False)
