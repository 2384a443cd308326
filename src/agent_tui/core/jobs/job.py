"""One background job: its process, its output streamed to a spill file as it arrives (no cap:
the file holds every byte), what the model has read of it, how it ended.

The output is read from our own pipe (the write end only in the command) and written through
a ``SpillWriter``, flushed after each piece so ``read_new`` (another descriptor of the same
file, valid after the rename) sees it; the spill is committed when the job ends, and is then a
spill like any other (listed, browsed, kept while a message names it).
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import logging
import os
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterator

from agent_tui.core.budget.store import SpillRecord, SpillStore, SpillWriter
from agent_tui.core.jobs.groups import Started, terminate
from agent_tui.core.jobs.info import JobInfo, JobState
from agent_tui.core.text.ansi import strip_escapes

READ_BYTES = 64 * 1024
DRAIN_GRACE = 1.0
"""After the shell exits, how long what it left behind may still write to the pipe."""
TAIL_LINES = 8
TAIL_CHARS = 400
FRESHEN_SECONDS = 600.0
"""How often a running job's unfinished spill files are marked fresh (``SpillWriter.touch``):
cleanup removes temporary files an hour old, and a quiet server may write nothing for longer."""
MAX_READ_BYTES = 32 << 20
"""At most this much new output per ``read_new`` (the rest stays unread, for the next)."""
log = logging.getLogger(__name__)

Listener = Callable[["Job"], None]
After = Callable[[], Awaitable[str | None]]
"""Run once the job has ended (the command guard's sweep); a sentence for the note, or None."""


class Job:
    def __init__(
        self,
        job_id: str,
        command: str,
        proc: Started,
        writer: SpillWriter,
        log_shown: str,
        changed: Listener,
        after: After | None = None,
    ) -> None:
        self.id = job_id
        self.command = command
        self.proc = proc
        self.writer = writer
        self.log_shown = log_shown
        self._changed = changed
        self._after = after
        self.started = time.time()
        self.ended: float | None = None
        self.state = JobState.RUNNING
        self.exit_code: int | None = None
        self.killed_by: str | None = None
        self.swept: str | None = None
        """What the command guard undid after the job (a sentence), or None."""
        self.noted = False
        """Its end was told to the model (or needs not be: the model killed it)."""
        self._reader = writer.open_reader()
        self._written = 0
        self._lines = 0
        self._read_at = 0
        self._read_lines = 0
        self._last_byte = b"\n"
        self._tail: deque[str] = deque(maxlen=TAIL_LINES)
        self._partial = ""
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._timer: asyncio.TimerHandle | None = None
        self._fresh: asyncio.TimerHandle | None = None
        self._lock = asyncio.Lock()
        self.done = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self, pipe_fd: int) -> None:
        """Follow the command: its output from ``pipe_fd`` (owned from now), then its end."""
        self._task = asyncio.ensure_future(self._follow(pipe_fd))
        self._freshen()

    def _freshen(self) -> None:
        if self.done.is_set():
            return
        self.writer.touch()
        self._fresh = asyncio.get_running_loop().call_later(FRESHEN_SECONDS, self._freshen)

    async def _follow(self, pipe_fd: int) -> None:
        loop = asyncio.get_running_loop()
        pipe = os.fdopen(pipe_fd, "rb", buffering=0)
        reader = asyncio.StreamReader(limit=READ_BYTES)
        transport: asyncio.ReadTransport | None = None
        pump: asyncio.Future[None] | None = None
        try:
            transport, _ = await loop.connect_read_pipe(
                lambda: asyncio.StreamReaderProtocol(reader), pipe
            )
            pump = asyncio.ensure_future(self._pump(reader))
            code = await self.proc.wait()
            await asyncio.wait({pump}, timeout=DRAIN_GRACE)
        finally:
            if pump is not None:
                pump.cancel()
                await asyncio.wait({pump})
                if not pump.cancelled() and pump.exception() is not None:
                    log.warning("reading background job %s failed: %s", self.id, pump.exception())
            if transport is not None:
                transport.close()
            else:
                pipe.close()
        await self._finish(code)

    async def _pump(self, reader: asyncio.StreamReader) -> None:
        while chunk := await reader.read(READ_BYTES):
            self._feed(chunk)

    def _feed(self, chunk: bytes) -> None:
        try:
            self.writer.write_bytes(chunk)
            self.writer.flush()
        except OSError:  # a full disk: what was written stays; say it once in the log
            log.exception("writing the output of background job %s failed", self.id)
        self._written += len(chunk)
        self._lines += chunk.count(b"\n")
        self._last_byte = chunk[-1:]
        parts = (self._partial + self._decoder.decode(chunk)).split("\n")
        self._partial = parts.pop()[-TAIL_CHARS:]
        for line in parts:
            if line.strip():
                self._tail.append(strip_escapes(line.removesuffix("\r"))[:TAIL_CHARS])
        if self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(0.2, self._tick)

    def _tick(self) -> None:
        self._timer = None
        self._changed(self)

    async def _finish(self, code: int) -> None:
        for timer in (self._timer, self._fresh):
            if timer is not None:
                timer.cancel()
        self._timer = self._fresh = None
        if self._partial.strip():
            self._tail.append(strip_escapes(self._partial)[:TAIL_CHARS])
            self._partial = ""
        try:
            await asyncio.to_thread(self.writer.commit)
        except OSError:  # the file was taken away (a cleanup): the reader still has it
            log.exception("saving the output of background job %s failed", self.id)
            self.writer.abort()
        if self._after is not None:
            try:
                self.swept = await self._after()
            except Exception:
                log.exception("the check after background job %s failed", self.id)
        self.exit_code = code
        self.ended = time.time()
        self.state = JobState.KILLED if self.killed_by is not None else JobState.EXITED
        self.noted = self.killed_by == "model"
        self.done.set()
        self._changed(self)

    async def kill(self, by: str) -> None:
        """Stop the job's whole process group (SIGTERM, then SIGKILL) and wait for its end."""
        if self.state is JobState.RUNNING and self.killed_by is None:
            self.killed_by = by
            self._changed(self)
            await asyncio.shield(terminate(self.proc))
        await self.done.wait()

    def info(self) -> JobInfo:
        lines = self._lines + (0 if self._last_byte == b"\n" else 1)
        return JobInfo(
            id=self.id,
            command=self.command,
            state=self.state,
            exit_code=self.exit_code,
            started=self.started,
            ended=self.ended,
            lines=lines,
            bytes=self._written,
            unread_lines=max(0, lines - self._read_lines),
            unread_bytes=self._written - self._read_at,
            tail=tuple(self._tail),
            log=self.log_shown,
            pid=self.proc.pid,
            killed_by=self.killed_by,
        )

    async def read_new(self, keep: Callable[[str], bool] | None = None) -> tuple[str, int]:
        """The output not read before (decoded, escape codes stripped; with ``keep``, only
        the lines it keeps), and how many bytes are left unread after it (past
        ``MAX_READ_BYTES``). Only complete lines are taken while the job runs. Decoding and
        filtering run in a thread (up to 32 MiB, a model's regex); when ``keep`` raises, the
        output stays unread."""
        async with self._lock:
            start, end = self._read_at, self._written
            if end - start > MAX_READ_BYTES:
                end = start + MAX_READ_BYTES
            data = await asyncio.to_thread(os.pread, self._reader, end - start, start)
            if self.state is JobState.RUNNING or end < self._written:
                cut = data.rfind(b"\n") + 1
                if cut or end - start < MAX_READ_BYTES:
                    data = data[:cut]
            text = await asyncio.to_thread(_readable, data, keep)
            self._read_at = start + len(data)
            self._read_lines += data.count(b"\n")
            if self.state is not JobState.RUNNING and self._read_at == self._written:
                self._read_lines = self.info().lines
            return text, self._written - self._read_at

    def copy_to(self, store: SpillStore, tool: str) -> SpillRecord:
        """What it wrote so far, saved as a spill of its own (to browse while it runs).
        Blocking: use a thread."""
        end = self._written

        def chunks() -> Iterator[bytes]:
            at = 0
            while at < end:
                data = os.pread(self._reader, min(1 << 20, end - at), at)
                if not data:
                    return
                at += len(data)
                yield data

        summary = f"{self.command} (output so far)"
        return store.write_bytes(chunks(), tool, f"job{self.id}", summary=summary)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self._reader)


def _readable(data: bytes, keep: Callable[[str], bool] | None) -> str:
    """``data`` as text without escape codes, only the lines ``keep`` keeps (blocking)."""
    text = strip_escapes(data.decode("utf-8", errors="replace"))
    if keep is None:
        return text
    return "".join(line for line in text.splitlines(keepends=True) if keep(line))
