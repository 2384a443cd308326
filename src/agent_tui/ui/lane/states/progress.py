"""*progress*: the call runs. A live tail of a shell's output, a progress bar for MCP progress
(n/total and the server's message), "starting server…" while a lazy MCP server is started for
the call, a spinner otherwise; the title line ticks the elapsed time. A call that has waited on
its MCP server for a while says so, ticking, on two lines: "waiting for server fetch · 42 s",
then "last progress 3 s ago: Installing…" (``calls.state.wait_parts``, from the typed
``ServerWait``).
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import ProgressBar, Static

from agent_tui.ui.calls.state import STARTED, STARTING_SERVER, CallState, wait_parts
from agent_tui.ui.common.format import spinner_frame

TAIL_SHOWN = 3


class ProgressView(Vertical):
    DEFAULT_CSS = """
    ProgressView {
        height: auto;
        padding-left: 2;
        color: $primary;
        & > Static { text-wrap: nowrap; text-overflow: ellipsis; }
        & > .tail { color: $text-muted; text-style: dim; display: none; }
        &.-tail > .tail { display: block; }
        & > .said { color: $text-muted; padding-left: 2; display: none; }
        &.-waiting > .said { display: block; }
        & > ProgressBar { height: 1; }
        & Bar { width: 1fr; }
        & Bar > .bar--bar { color: $primary; }
    }
    """

    def __init__(self, call: CallState, now: float) -> None:
        super().__init__()
        self.call = call
        self.now = now
        self.bar: ProgressBar | None = None

    def compose(self) -> ComposeResult:
        yield Static(classes="line")
        yield Static(classes="said")
        yield Static(classes="tail")

    def on_mount(self) -> None:
        self.show(self.call, self.now)

    def _line(self, call: CallState, now: float) -> Content:
        if call.waiting is not None:
            return self._waiting(call, now)
        detail = "" if call.message == STARTED else (call.message or "")
        if call.starting_server:
            detail = STARTING_SERVER
        if call.progress is not None and not call.total:
            detail = f"{call.progress:g} {detail}".strip()
        if call.total:
            detail = f"{call.progress or 0:g}/{call.total:g}" + (f" · {detail}" if detail else "")
        if call.current:  # a subagent's call in flight
            detail = f"→ {call.current}" + (f" · {detail}" if detail else "")
        suffix = f" · {detail}" if detail else ""
        if call.allowed_by:
            suffix += f" · {call.allowed_line}"
        if call.tail or call.total:
            return Content.assemble(("running", "bold"), suffix)
        spinner = Content.styled(spinner_frame(now), "bold")
        return Content.assemble(spinner, " ", ("running", "bold"), suffix)

    def _waiting(self, call: CallState, now: float) -> Content:
        assert call.waiting is not None
        since = max(0.0, now - call.reported_at) if call.reported_at is not None else 0.0
        head, times, _ = wait_parts(call.waiting, since)
        if call.total:
            times = f"{call.progress or 0:g}/{call.total:g} · {times}"
        line = Content.assemble((head, "bold"), f" · {times}")
        if call.tail or call.total:
            return line
        return Content.assemble(Content.styled(spinner_frame(now), "bold"), " ", line)

    def show(self, call: CallState, now: float) -> None:
        self.call, self.now = call, now
        if not self.is_mounted:
            return
        self.query_one(".line", Static).update(self._line(call, now))
        self.set_class(call.waiting is not None, "-waiting")
        if call.waiting is not None:  # its own line: a narrow lane keeps what the server said
            since = max(0.0, now - call.reported_at) if call.reported_at is not None else 0.0
            self.query_one(".said", Static).update(Content(wait_parts(call.waiting, since)[2]))
        self.set_class(bool(call.tail), "-tail")
        if call.tail:
            self.query_one(".tail", Static).update(Content("\n".join(call.tail[-TAIL_SHOWN:])))
        if call.total:
            if self.bar is None:
                self.bar = ProgressBar(total=call.total, show_eta=False)
                self.mount(self.bar)
            self.bar.update(total=call.total, progress=call.progress or 0)
