"""``run_shell`` calls shown as the editor's terminals, when the client advertises
``terminal``: the command still runs here, and only its output is shown there.

Why not run the command through ``terminal/create``: agent-tui's sandbox is more than a
command line. The permission pipeline judges the command; bubblewrap confines it, with the
lifeline, the scrubbed environment and the scratch directories; the command guard and the
after-checks (quarantine, git's config and hooks, the checkpoint's workspace scans) run
around it; its whole output is kept byte for byte (the spill). A client's terminal would run
it outside all of that, with the client's environment, and keep a truncated output. So the
call runs exactly as in the TUI, and the editor gets a terminal that shows it: the terminal
runs ``follow.py``, which copies what this module writes to one file (every line of output
the call reports, as it comes: ``ToolExecutor.on_output``) and ends with the command's exit
code. That program runs nothing and reads nothing else; a terminal that cannot be created or
does not end is only a display lost: the call goes on and ends as it would.

A call is shown once it starts running (a refused or rejected call gets no terminal); its
updates carry ``{"type": "terminal", "terminalId": …}`` first, then what they carried before
(the output as the model reads it, a spill's link). A background command (``run_in_background``)
is not shown: its output goes to its job.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp.schema import TerminalToolCallContent, ToolCallProgress

from agent_tui.acp import follow
from agent_tui.core.events import Event, ToolErrorEvent, ToolProgress, ToolRejected, ToolResult

if TYPE_CHECKING:
    from acp.interfaces import Client

    from agent_tui.core.events import ToolUse

SHELLS = frozenset({"run_shell", "Bash"})
"""The calls shown as terminals (ours, and Claude Code's name for it)."""
WAIT_SECONDS = 10.0
"""The longest the turn waits on the client for a terminal (created, ended, released)."""
INTERRUPTED = 130
log = logging.getLogger(__name__)


@dataclass
class _Shown:
    """One call's terminal and the output not yet written for it."""

    pending: list[str] = field(default_factory=list)
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    done: bool = False
    folder: Path | None = None
    terminal: str | None = None
    writer: asyncio.Task[None] | None = None

    @property
    def output(self) -> Path:
        assert self.folder is not None
        return self.folder / "output"


def _append(path: Path, lines: list[str]) -> None:
    with path.open("ab") as f:
        f.write("".join(line + "\n" for line in lines).encode("utf-8", errors="replace"))


def _end(path: Path, code: int) -> None:
    part = path.with_name("exit.part")
    part.write_text(str(code), encoding="ascii")
    part.replace(path.with_name(path.name + ".exit"))


class ShellTerminals:
    """The terminals of one session's shell calls (see the module)."""

    def __init__(self, conn: Client, session_id: str) -> None:
        self.conn = conn
        self.session_id = session_id
        self._calls: dict[str, _Shown] = {}

    def expect(self, event: ToolUse) -> None:
        """A call was asked for: if it is a shell command, its output is kept from now on."""
        background = bool(event.input and event.input.get("run_in_background"))
        if event.name in SHELLS and not background and event.agent is None:
            self._calls[event.id] = _Shown()

    def output(self, call: str, lines: tuple[str, ...]) -> None:
        """``ToolExecutor.on_output``: new lines of a running call."""
        shown = self._calls.get(call)
        if shown is not None:
            shown.pending.extend(lines)
            shown.wake.set()

    async def dress(self, event: Event, update: Any) -> Any:
        """``update`` (sent for ``event``) with the call's terminal: created when the call
        starts, ended and released when it ends."""
        if not isinstance(update, ToolCallProgress) or update.tool_call_id not in self._calls:
            return update
        call = update.tool_call_id
        if isinstance(event, ToolProgress) and update.status == "in_progress":
            terminal = await self._start(call, self._calls[call])
        elif isinstance(event, ToolResult | ToolErrorEvent | ToolRejected):
            code = _code(event)
            terminal = await self._finish(self._calls.pop(call), code)
        else:
            return update
        if terminal is None:
            return update
        content = TerminalToolCallContent(type="terminal", terminal_id=terminal)
        return update.model_copy(update={"content": [content, *(update.content or [])]})

    async def _start(self, call: str, shown: _Shown) -> str | None:
        try:
            shown.folder = Path(await asyncio.to_thread(tempfile.mkdtemp, prefix="agent-tui-"))
            await asyncio.to_thread(shown.output.touch)
            async with asyncio.timeout(WAIT_SECONDS):
                created = await self.conn.create_terminal(
                    session_id=self.session_id,
                    command=sys.executable,
                    args=["-I", follow.__file__, str(shown.output), str(os.getpid())],
                    cwd=str(shown.folder),
                )
        except Exception as exc:
            log.warning("no terminal for call %s: %s", call, exc)
            self._calls.pop(call, None)
            await _remove(shown.folder)
            return None
        shown.terminal = created.terminal_id
        shown.writer = asyncio.get_running_loop().create_task(_write(shown))
        return shown.terminal

    async def _finish(self, shown: _Shown, code: int) -> str | None:
        if shown.terminal is None:  # never started (refused, rejected)
            await _remove(shown.folder)
            return None
        shown.done = True
        shown.wake.set()
        if shown.writer is not None:
            await asyncio.wait({shown.writer})
        try:
            await asyncio.to_thread(_end, shown.output, code)
            async with asyncio.timeout(WAIT_SECONDS):
                await self.conn.wait_for_terminal_exit(
                    session_id=self.session_id, terminal_id=shown.terminal
                )
        except Exception as exc:
            log.warning("terminal %s did not end: %s", shown.terminal, exc)
        try:
            async with asyncio.timeout(WAIT_SECONDS):
                await self.conn.release_terminal(
                    session_id=self.session_id, terminal_id=shown.terminal
                )
        except Exception as exc:
            log.warning("terminal %s was not released: %s", shown.terminal, exc)
        await _remove(shown.folder)
        return shown.terminal


async def _write(shown: _Shown) -> None:
    """Write the call's lines to its file as they come, until it ended and all are out."""
    try:
        while True:
            await shown.wake.wait()
            shown.wake.clear()
            lines, shown.pending = shown.pending, []
            if lines:
                await asyncio.to_thread(_append, shown.output, lines)
            if shown.done and not shown.pending:
                return
    except OSError as exc:
        log.warning("writing a terminal's output failed: %s", exc)


async def _remove(folder: Path | None) -> None:
    if folder is not None:
        with contextlib.suppress(OSError):
            await asyncio.to_thread(shutil.rmtree, folder)


def _code(event: Event) -> int:
    """The exit code the terminal ends with: the command's, else 1 (130: interrupted)."""
    if isinstance(event, ToolResult):
        exit_code = event.facts.exit_code
        if exit_code is not None:
            return exit_code if 0 <= exit_code < 256 else 1
        return 1 if event.is_error else 0
    if isinstance(event, ToolErrorEvent) and event.code in {"interrupted", "cancelled"}:
        return INTERRUPTED
    return 1
