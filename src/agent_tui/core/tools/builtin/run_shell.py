"""run_shell: one shell command in the session cwd, output streamed, whole process group managed.

The model reads the output decoded (U+FFFD for what is not UTF-8), without terminal escape
codes, followed by a footer: the exit code and, when the sandbox refused something, a line
saying what. The command's exact bytes go with it (``ToolOutput.raw``): a spill saves those,
so the file is what the command wrote — no footer, no final newline removed, nothing decoded.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import logging
import os
import signal
import tempfile
import time
from typing import TYPE_CHECKING

from pydantic import Field

from agent_tui.core.budget.raw import RawOutput
from agent_tui.core.calls import ResultFacts
from agent_tui.core.jobs.groups import terminate
from agent_tui.core.sandbox.refusal import incomplete
from agent_tui.core.text.ansi import strip_escapes
from agent_tui.core.text.summary import first_line
from agent_tui.core.tools import claude_calls
from agent_tui.core.tools.aliases import CallAlias
from agent_tui.core.tools.base import (
    KeptOutput,
    ProgressCallback,
    ProgressUpdate,
    Tool,
    ToolContext,
    ToolInput,
    ToolMeta,
    ToolOutput,
)
from agent_tui.core.tools.builtin.shell_jobs import start_job
from agent_tui.core.tools.builtin.shell_spawn import spawn
from agent_tui.core.tools.errors import TIMEOUT, ToolErrorInfo, ToolFailure
from agent_tui.core.tools.files.paths import shown

if TYPE_CHECKING:
    from agent_tui.core.sandbox import command_guard

DEFAULT_TIMEOUT = 120.0
MAX_TIMEOUT = 600.0
KILL_GRACE = 2.0  # seconds between SIGTERM and SIGKILL
DRAIN_GRACE = 1.0  # after the shell exits, how long background holders of the pipe may write
READ_BYTES = 64 * 1024
PROGRESS_INTERVAL = 0.1
PROGRESS_LINE_CHARS = 1000
SPOOL_BYTES = 8 << 20  # output past this goes to a temporary file, not memory
MAX_OUTPUT_BYTES = 1 << 30  # all output up to 1 GiB is kept byte for byte (then spilled whole)
TAIL_BYTES = 8 << 20  # past the cap: the last 8 MiB (the failure summary) are still kept
log = logging.getLogger(__name__)

DESCRIPTION = """\
\
Run `bash -c` in the working directory; returns stdout+stderr and the exit code. Use the file \
tools for files. No stdin or terminal: non-interactive flags (`-y`, `git --no-pager`), no \
editors or prompts. A timeout kills all it started. Each call is a fresh shell: chain \
`cd x && …`."""


class RunShellInput(ToolInput):
    command: str = Field(
        min_length=1,
        description="Command line, e.g. `pytest -q tests/test_x.py`.",
    )
    timeout: float = Field(
        default=DEFAULT_TIMEOUT,
        gt=0,
        le=MAX_TIMEOUT,
        description="Seconds; raise for long builds.",
    )
    run_in_background: bool = Field(default=False, description="Return at once (a job).")


class _Output:
    """Keeps the whole output (in memory up to ``SPOOL_BYTES``, then in a temporary file) and
    reports complete lines as batched progress. Only a runaway command producing more than
    ``MAX_OUTPUT_BYTES`` loses its middle, and the output says how much (a line put between
    the kept head and tail). ``raw`` hands the kept bytes over without copying them."""

    def __init__(self, progress: ProgressCallback) -> None:
        self._progress = progress
        # lives as long as the call (closed by close()), so no ``with`` block
        self._kept: tempfile.SpooledTemporaryFile[bytes] = tempfile.SpooledTemporaryFile(  # noqa: SIM115
            max_size=SPOOL_BYTES, prefix="agent-tui-shell-"
        )
        self._kept_bytes = 0
        self._sealed = False
        self._handed_over = False
        self._tail = bytearray()
        self._total = 0
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._partial = ""
        self._pending: list[str] = []
        self._last_flush = 0.0
        self._timer: asyncio.TimerHandle | None = None

    async def pump(self, reader: asyncio.StreamReader) -> None:
        while chunk := await reader.read(READ_BYTES):
            self._feed(chunk)

    def _feed(self, chunk: bytes) -> None:
        self._total += len(chunk)
        room = MAX_OUTPUT_BYTES - self._kept_bytes
        if room > 0:
            self._kept.write(chunk[:room])
            self._kept_bytes += min(room, len(chunk))
        if len(chunk) > room:
            self._tail += chunk[max(room, 0) :]
            if len(self._tail) > 2 * TAIL_BYTES:
                del self._tail[:-TAIL_BYTES]
        lines = (self._partial + self._decoder.decode(chunk)).split("\n")
        self._partial = lines.pop()[:PROGRESS_LINE_CHARS]
        self._pending += [
            strip_escapes(line.removesuffix("\r"))[:PROGRESS_LINE_CHARS] for line in lines
        ]
        if not self._pending:
            return
        wait = PROGRESS_INTERVAL - (time.monotonic() - self._last_flush)
        if wait <= 0:
            self.flush()
        elif self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(wait, self.flush)

    def stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def flush(self, final: bool = False) -> None:
        self.stop_timer()
        if final and self._partial:
            self._pending.append(strip_escapes(self._partial))
            self._partial = ""
        if self._pending:
            update = ProgressUpdate(lines=tuple(self._pending))
            self._pending = []
            try:
                self._progress(update)
            except Exception:  # a broken listener must not stop the output from draining
                log.exception("run_shell progress callback failed")
        self._last_flush = time.monotonic()

    def _seal(self) -> None:
        """The output is complete: what was kept past the cap (a line saying how much was
        left out, then the tail) goes after the kept bytes, so the file holds all there is."""
        if self._sealed:
            return
        self._sealed = True
        tail = bytes(self._tail[-TAIL_BYTES:])
        self._tail = bytearray()
        omitted = self._total - self._kept_bytes - len(tail)
        self._kept.seek(0, os.SEEK_END)
        if omitted:
            line = f"\n[… {omitted:,} bytes of output omitted: over the 1 GiB limit …]\n"
            self._kept.write(line.encode("utf-8"))
        self._kept.write(tail)

    def text(self) -> str:
        """The output as text, every byte kept (CRLF too); invalid UTF-8 becomes U+FFFD."""
        self._seal()
        self._kept.seek(0)
        return self._kept.read().decode("utf-8", errors="replace")

    def raw(self) -> RawOutput:
        """The output's exact bytes, handed over (``close`` then leaves them open)."""
        self._seal()
        self._handed_over = True
        return RawOutput(self._kept)

    def close(self) -> None:
        if not self._handed_over:
            self._kept.close()


def _footer(code: int) -> str:
    if code < 0:
        with contextlib.suppress(ValueError):
            return f"[killed by signal {signal.Signals(-code).name} (exit code {code})]"
    return f"[exit code {code}]"


async def _call(inp: RunShellInput, ctx: ToolContext) -> ToolOutput:
    if not ctx.cwd.is_dir():
        raise ToolFailure(
            "bad_cwd",
            f"The working directory {ctx.cwd} does not exist.",
            "Ask the user to restart in an existing directory.",
        )
    if inp.run_in_background:
        return await start_job(inp.command, ctx)
    loop = asyncio.get_running_loop()
    shell = ctx.sandbox.state.shell
    # what the command could plant, recorded before it runs (sandboxed or not)
    from agent_tui.core.sandbox import command_guard  # a command's first run imports it

    guard = await asyncio.to_thread(command_guard.before, ctx.sandbox)
    read_fd, write_fd = os.pipe()
    try:
        proc = await spawn(inp.command, ctx, write_fd, guard.masked)
    except BaseException:
        os.close(read_fd)
        raise
    finally:
        os.close(write_fd)
    # Our own pipe (not PIPE): wait() returns when the shell exits even if a background job
    # still holds the pipe, and closing our end is ours to decide.
    pipe = os.fdopen(read_fd, "rb", buffering=0)
    reader = asyncio.StreamReader(limit=READ_BYTES)
    output = _Output(ctx.progress)
    transport: asyncio.ReadTransport | None = None
    pump: asyncio.Future[None] | None = None
    try:
        transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), pipe
        )
        pump = asyncio.ensure_future(output.pump(reader))
        async with asyncio.timeout(inp.timeout):
            code = await proc.wait()
            await asyncio.wait({pump}, timeout=DRAIN_GRACE)
    except TimeoutError:
        await asyncio.shield(terminate(proc, KILL_GRACE))
        if pump is not None:
            await asyncio.wait({pump}, timeout=DRAIN_GRACE)
        output.flush(final=True)
        try:
            text = strip_escapes(output.text()).rstrip("\r\n") or "(no output)"
            moved = await _sweep(guard, ctx)
        except BaseException:
            output.close()
            raise
        footer = (
            f"[killed: the command did not finish within {inp.timeout:g} s; everything it "
            "started was killed]" + (f"\n[{moved}]" if moved else "")
        )
        # the whole output, as any result: the budget spills it (its exact bytes) and the
        # model reads its tail and the footer (it was cut to 50 lines and the rest lost)
        raise ToolFailure(
            TIMEOUT,
            f"{text}\n{footer}",
            "If it just needs longer, run it again with a larger timeout (maximum "
            f"{MAX_TIMEOUT:g}). If it waits for input or never ends (a server, watch mode, "
            "a prompt), use non-interactive flags or run it in the background with output "
            "redirected to a file.",
            raw=output.raw(),
            footer=footer,
        ) from None
    except BaseException:  # cancelled (Esc, a failing sibling): nothing may outlive the call
        await asyncio.shield(terminate(proc, KILL_GRACE))
        await asyncio.shield(_sweep(guard, ctx))
        output.flush(final=True)
        text = strip_escapes(output.text()).rstrip("\r\n")
        if text:  # what the user saw streaming is kept, spilled like any output
            ctx.kept = KeptOutput(text, output.raw())
        else:
            output.close()
        raise
    finally:
        output.stop_timer()
        if pump is not None:
            pump.cancel()
            await asyncio.wait({pump})
            if not pump.cancelled():
                pump.exception()  # retrieved: a failed read just ends the output
        if transport is not None:
            transport.close()
        else:
            pipe.close()
    output.flush(final=True)
    try:
        text = strip_escapes(output.text())
        text = text.removesuffix("\n").removesuffix("\r") or "(no output)"
        last = "" if code == 0 else first_line(_last_lines(text), 60)
        blocked = await _sweep(guard, ctx)
        if shell is not None and code != 0 and blocked is None:
            from agent_tui.core.sandbox.violations import explain

            blocked = explain(text, shell, ctx.cwd)
    except BaseException:
        output.close()
        raise
    footer = _footer(code) + (f"\n[{blocked}]" if blocked else "")
    return ToolOutput(
        f"{text}\n{footer}",
        raw=output.raw(),
        footer=footer,
        is_error=code != 0,
        data={"exit_code": code, "command": inp.command, "cwd": shown(ctx.cwd, ctx)},
        summary=f"exit {code}" + (f" · {last}" if last and not blocked else ""),
        facts=ResultFacts(
            exit_code=code,
            sandboxed=shell is not None,
            network=shell.network if shell is not None else None,
            blocked=blocked,
        ),
    )


async def _sweep(guard: command_guard.Guard, ctx: ToolContext) -> str | None:
    """Undo what the command planted (``command_guard``: protected paths a sandboxed command
    created, git config and hooks anywhere in the workspace), in a thread; one sentence on
    it, or None."""
    from agent_tui.core.sandbox import command_guard

    moved, problem = await asyncio.to_thread(guard.after)
    return command_guard.message(moved, problem, guard.sandboxed, lambda p: shown(p, ctx))


def _last_lines(text: str, count: int = 1) -> str:
    """The last non-blank line of the output: what a failing command said last."""
    lines = [line for line in text.splitlines() if line.strip()]
    return "\n".join(lines[-count:])


def _precheck(inp: RunShellInput, ctx: ToolContext) -> ToolErrorInfo | None:
    """A command the sandbox would refuse (the read rules' walk past its cap) is refused
    before anyone is asked to approve it: approving would not make it run."""
    if ctx.sandbox.state.shell is None:
        return None
    refused = incomplete(ctx.reads.hidden())
    if refused is None:
        return None
    return ToolErrorInfo(code="sandbox_refused", message=refused.reason, next_step=refused.hint)


TOOL = Tool(
    name="run_shell",
    call_aliases=(CallAlias("Bash", claude_calls.from_bash(MAX_TIMEOUT)),),
    description=DESCRIPTION,
    input_model=RunShellInput,
    call=_call,
    meta=ToolMeta(
        read_only=False,
        concurrency_safe=False,
        destructive=True,
        rule_kind="command",
        rule_subject="command",
        cancels_siblings_on_failure=True,
    ),
    precheck=_precheck,
)
