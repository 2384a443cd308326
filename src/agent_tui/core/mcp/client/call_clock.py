"""How long a tool call may wait on its MCP server: an idle timeout that signs of life reset,
bounded by a hard limit.

A server that is still working says so: a progress notification for the call, a log message,
a line on stderr (or a stdout line that is not JSON-RPC, which the SDK reports). Each such
sign resets the call's idle clock; a call fails when the server has said nothing for its
entry's ``timeout`` (60 s by default), or when it has run for ``max_total_timeout`` (600 s)
whatever it said. The SDK's own read timeout is fixed per request (``read_timeout_seconds``;
it has no reset on progress), so it is set past the hard limit and this clock decides.

``CallClock`` is one call's: a single timer, armed for the next moment something may be due
(the notice, the idle deadline, the hard limit, a look at stderr), so a sign of life costs a
few assignments and a fast call only the timer it cancels. Once the call has run for
``NOTICE_AFTER`` seconds it reports a ``ServerWait`` (typed: the server, how long, the last
sign and its text, both limits) as tool progress, and again with each sign of life (those
from logs and output at most once a second): the card says what the call waits for. On
expiry it cancels the call's scope; ``failure`` then says which limit ended it, after how
long, and what to configure. While a person answers the server (an elicitation form is
open) the clock stops: the call waits on them, not on the server. Nothing here imports the
SDK; ``anyio`` is imported only when a call runs.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

from agent_tui.core.calls import ServerWait, WaitSign
from agent_tui.core.mcp.client.stderr import StderrLog
from agent_tui.core.mcp.config.spec import ServerSpec
from agent_tui.core.tools.base import ProgressUpdate, ToolContext
from agent_tui.core.tools.errors import TIMEOUT, ToolFailure

NOTICE_AFTER = 3.0
"""Seconds a call runs before its progress says what it waits for (a fast call never does)."""
LOOK_EVERY = 1.0
"""Seconds between looks at the server's stderr once the call has been noticed, and at least
between two reports of its signs of life from logs and output."""
LATE = 0.25
"""Seconds a wake may come after its due time before the clock counts the agent's own loop as
stalled (a long paint, a loaded machine): signs of life may then wait unread in the pipe, so
an idle expiry is put off by this much, for the loop to read them first."""
SAID_CHARS = 200
SDK_MARGIN = 5.0
"""The SDK's read timeout is the hard limit plus this: never the one that fires."""

Progress = Callable[[float, float | None, str | None], Awaitable[None]]


def _short(text: str | None) -> str | None:
    if text is None:
        return None
    line = " ".join(text.split())
    return line if len(line) <= SAID_CHARS else line[: SAID_CHARS - 1] + "…"


class CallClock:
    """The idle timeout and hard limit of one call to ``spec``'s server."""

    def __init__(
        self,
        spec: ServerSpec,
        tool: str,
        ctx: ToolContext | None,
        stderr: StderrLog | None = None,
    ) -> None:
        self.spec = spec
        self.tool = tool
        self.ctx = ctx
        self.stderr = stderr
        self.loop = asyncio.get_running_loop()
        self.started = self.last = self.loop.time()
        self.sign: WaitSign | None = None
        self.said: str | None = None
        self.expired: str | None = None
        """``"idle"`` or ``"limit"`` once the clock ended the call."""
        self.noticed = False
        self._notice_at = self.started + NOTICE_AFTER
        self._reported = 0.0
        self._seen = self._output_size()
        self._scope: Any = None
        self._timer: asyncio.TimerHandle | None = None
        self._due = self.started
        self._grace = self.started
        """No idle expiry before this (the loop was stalled: see ``LATE``)."""
        self._paused = 0
        self._paused_at = 0.0

    @property
    def idle(self) -> float:
        return self.spec.timeout

    @property
    def limit(self) -> float:
        return self.spec.max_total_timeout

    @property
    def sdk_timeout(self) -> float:
        """The ``read_timeout_seconds`` to give the SDK for this call."""
        return self.limit + SDK_MARGIN

    # -- running a call under it ------------------------------------------------------------

    @contextlib.contextmanager
    def running(self) -> Iterator[None]:
        """Bound the block: cancelled when a limit is reached (then ``expired`` says which;
        the caller raises ``failure()``). Cancellation from outside goes through."""
        import anyio

        with anyio.CancelScope() as scope:
            self._scope = scope
            self._arm()
            try:
                yield
            finally:
                self._stop()

    def progress_callback(self) -> Progress:
        """The SDK's ``progress_callback``: a sign of life, reported as tool progress."""

        async def report(progress: float, total: float | None, message: str | None) -> None:
            self.touch("progress", message, report=False)
            if self.ctx is not None:
                update = ProgressUpdate(
                    message=message, progress=progress, total=total, waiting=self.waiting()
                )
                self.ctx.progress(update)

        return report

    # -- signs of life ----------------------------------------------------------------------

    def touch(self, sign: WaitSign, said: str | None, *, report: bool = True) -> None:
        """The server showed a sign of life: the idle clock starts again."""
        now = self.loop.time()
        self.last, self.sign, self.said = now, sign, _short(said)
        if report and self.noticed and now - self._reported >= LOOK_EVERY:
            self._report(now)

    def pause(self) -> None:
        """A person is answering the server (an elicitation form is open): the call waits on
        them, not on the server; neither limit runs meanwhile."""
        self._paused += 1
        if self._paused == 1:
            self._paused_at = self.loop.time()

    def resume(self) -> None:
        """The person answered: the limits run again, the time they took not counted."""
        self._paused = max(0, self._paused - 1)
        if self._paused == 0:
            now = self.loop.time()
            self.started += now - self._paused_at
            self.last = now

    def waiting(self) -> ServerWait | None:
        """What the call waits for, once it has been noticed (None before)."""
        if not self.noticed:
            return None
        now = self.loop.time()
        self._reported = now
        return ServerWait(
            server=self.spec.name,
            waited=round(now - self.started, 3),
            quiet=round(now - self.last, 3),
            sign=self.sign,
            said=self.said,
            idle_timeout=self.idle,
            limit=self.limit,
        )

    def _report(self, now: float) -> None:
        if self.ctx is not None:
            self.ctx.progress(ProgressUpdate(waiting=self.waiting()))

    def _output_size(self) -> int:
        if self.stderr is None:
            return 0
        return self.stderr.size() + self.stderr.trimmed

    def _look_at_output(self) -> None:
        """stderr grew since the last look: a sign of life (its last line is what it said)."""
        size = self._output_size()
        if size != self._seen:
            self._seen = size
            assert self.stderr is not None
            tail = self.stderr.tail(1)
            self.touch("output", tail[-1] if tail else None)

    # -- the timer --------------------------------------------------------------------------

    def _arm(self) -> None:
        due = min(max(self.last + self.idle, self._grace), self.started + self.limit)
        if not self.noticed:
            due = min(due, self._notice_at)
        elif self.stderr is not None:
            due = min(due, self.loop.time() + LOOK_EVERY)
        self._due = due
        self._timer = self.loop.call_at(due, self._wake)

    def _wake(self) -> None:
        self._timer = None
        now = self.loop.time()
        if self._paused:
            self._timer = self.loop.call_at(now + LOOK_EVERY, self._wake)
            return
        self._look_at_output()
        if not self.noticed and now >= self._notice_at:
            self.noticed = True
            self._report(now)
        if now >= self.started + self.limit:
            self.expired = "limit"
        elif now >= max(self.last + self.idle, self._grace):
            if now - self._due > LATE:  # the loop, not the server, was silent meanwhile
                self._grace = now + LATE
            else:
                self.expired = "idle"
        if self.expired is not None:
            if self._scope is not None:
                self._scope.cancel()
            return
        self._arm()

    def _stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._scope = None

    # -- the words of an expired call -------------------------------------------------------

    def failure(self, tail: list[str]) -> ToolFailure:
        """What the call fails with once ``expired`` (a ``timeout`` error)."""
        name = self.spec.name
        ran = self.loop.time() - self.started
        where = _config_name(self.spec)
        last = self._last_sign()
        details = [
            f"waited: {ran:.1f} s",
            f"timeout (idle): {self.idle:g} s",
            f"max_total_timeout: {self.limit:g} s",
            f"last sign of life: {last}",
        ]
        if tail:
            details += ["last lines of the server's stderr:", *(f"  {t}" for t in tail)]
        if self.expired == "limit":
            return ToolFailure(
                TIMEOUT,
                f"{self.tool} on the MCP server {name!r} was stopped after {self.limit:g} s, "
                f"the limit for one call, though the server was still working (last sign of "
                f"life: {last}).",
                f'If the task needs longer, ask the user to raise "max_total_timeout" of '
                f"{name!r} in {where}; otherwise split the request or use another tool.",
                retryable=False,
                details=details,
            )
        return ToolFailure(
            TIMEOUT,
            f"{self.tool} on the MCP server {name!r} was stopped: it waited {self.idle:g} s "
            f"with no progress, log message or output from the server (the call ran "
            f"{ran:.0f} s; last sign of life: {last}).",
            f'If the server is only slow to say anything, ask the user to raise "timeout" of '
            f"{name!r} in {where} (seconds without progress); otherwise try again or use "
            "another tool.",
            retryable=True,
            details=details,
        )

    def _last_sign(self) -> str:
        if self.sign is None:
            return "none"
        ago = max(0.0, self.loop.time() - self.last)
        said = f": {self.said}" if self.said else ""
        return f"{self.sign} {ago:.0f} s before the end{said}"


def _config_name(spec: ServerSpec) -> str:
    source = spec.source
    return str(source) if isinstance(source, Path) else ".mcp.json"


__all__ = ["LOOK_EVERY", "NOTICE_AFTER", "SDK_MARGIN", "CallClock"]
