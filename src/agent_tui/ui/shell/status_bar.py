"""The status bar: DEMO badge, model, what the agent is doing, permission mode, session tokens,
the context meter (``42% of 200k``, ``~`` when estimated; warning colour from 60%, error colour
above 80%; shown once a figure is known), MCP servers (n connected / n failed, once any is
configured), cwd."""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static

from agent_tui.ui.common.format import format_tokens, format_window, one_line_path
from agent_tui.ui.shell.activity import Activity, activity_busy, activity_text, mode_tone

if TYPE_CHECKING:
    from textual.timer import Timer

NARROW_BELOW = 100
"""Columns below which the bar is shortened (the main screen stacks its lane there too)."""
METER_WARN = 60
"""Percent of the window from which the meter takes the warning colour."""
METER_FULL = 80
"""Percent above which it takes the error colour."""


def meter_text(tokens: int, window: int, estimated: bool) -> str:
    """``42% of 200k``; ``~42% of 200k`` when the figure is an estimate."""
    percent = min(999, round(100 * tokens / window)) if window > 0 else 0
    return f"{'~' if estimated else ''}{percent}% of {format_window(window)}"


class StatusBar(Horizontal):
    DEFAULT_CSS = """
    StatusBar {
        height: 1;
        background: $panel;
        color: $text-muted;
        padding: 0 1;
        & > Static { width: auto; margin-right: 2; text-wrap: nowrap; }
        & > #demo-badge {
            display: none;
            background: $warning;
            color: $background;
            text-style: bold;
            padding: 0 1;
            margin-right: 1;
        }
        &.-demo > #demo-badge { display: block; }
        & > #model { color: $foreground; text-style: bold; }
        & > #activity.-busy { color: $primary; text-style: bold; }
        & > #activity.-approval { color: $warning; text-style: bold; }
        & > #mode.-relaxed { color: $warning; }
        & > #mode.-plan { color: $accent; }
        & > #sandbox { display: none; }
        & > #sandbox.-shown { display: block; }
        & > #sandbox.-warn { color: $warning; }
        & > #context { display: none; }
        & > #context.-shown { display: block; }
        & > #context.-warn { color: $warning; }
        & > #context.-full { color: $error; text-style: bold; }
        & > #mcp { display: none; }
        & > #mcp.-shown { display: block; }
        & > #mcp.-failed { color: $error; }
        & > #cwd { width: 1fr; margin-right: 0; text-align: right; text-overflow: ellipsis; }
        &.-narrow > Static { margin-right: 1; }
        &.-narrow > #tokens { display: none; }
        &.-narrow > #cwd { margin-right: 0; }
    }
    """

    model: reactive[str] = reactive("")
    demo: reactive[bool] = reactive(False)
    activity: reactive[Activity] = reactive(Activity.IDLE)
    retry_until: reactive[float] = reactive(0.0)
    """When the waiting retry is sent (``time.monotonic()``): a countdown beside ``retrying``."""
    mode: reactive[str] = reactive("")
    input_tokens: reactive[int] = reactive(0)
    output_tokens: reactive[int] = reactive(0)
    context_tokens: reactive[int] = reactive(0)
    context_window: reactive[int] = reactive(0)
    """0: no figure yet (the meter is hidden)."""
    context_estimated: reactive[bool] = reactive(False)
    cwd: reactive[str] = reactive("")
    mcp_connected: reactive[int] = reactive(0)
    mcp_failed: reactive[int] = reactive(0)
    mcp_connecting: reactive[int] = reactive(0)
    sandbox: reactive[str] = reactive("")
    sandbox_warn: reactive[bool] = reactive(False)
    sandbox_tooltip: reactive[str] = reactive("")

    BOUND: ClassVar[tuple[str, ...]] = (
        "model",
        "demo",
        "mode",
        "activity",
        "retry_until",
        "input_tokens",
        "output_tokens",
        "context_tokens",
        "context_window",
        "context_estimated",
        "cwd",
        "mcp_connected",
        "mcp_failed",
        "mcp_connecting",
        "sandbox",
        "sandbox_warn",
    )
    """The app's reactives of the same names it binds (the tooltip is set, not bound)."""

    _ticker: Timer | None = None

    def compose(self) -> ComposeResult:
        yield Static("DEMO", id="demo-badge")
        yield Static(id="model")
        yield Static(id="activity")
        yield Static(id="mode")
        yield Static(id="sandbox")
        yield Static(id="tokens")
        yield Static(id="context")
        yield Static(id="mcp")
        yield Static(id="cwd")

    def on_mount(self) -> None:
        self.tooltip = (
            "model · state · permission mode (shift+tab) · sandbox · session tokens (in/out) · "
            "context window used (~: estimated) · MCP · cwd"
        )
        self.query_one(
            "#demo-badge", Static
        ).tooltip = "The offline demo model: canned answers, no API key, no network."
        self._sync()

    def on_resize(self) -> None:
        """Below ``NARROW_BELOW`` columns the bar says less (the mode without ``mode:``, the
        sandbox's mark, no token counts, MCP as counts) so the MCP servers and cwd still fit."""
        narrow = self.size.width < NARROW_BELOW
        if narrow != self.has_class("-narrow"):
            self.set_class(narrow, "-narrow")
            self._sync()

    def _put(self, label_id: str, content: str | Content) -> Static:
        """Show ``content`` in the label ``label_id`` unless it shows it already: every
        update asks for a layout of the screen, and ``_sync`` runs on every change of any
        value (a turn's token counts, the activity), most leaving labels as they were."""
        label = self.query_one(f"#{label_id}", Static)
        if label.content != content:
            label.update(content)
        return label

    def _sync(self) -> None:
        """Show the current values (every watcher lands here; ``_put`` leaves the labels
        whose text is unchanged alone)."""
        if not self.is_mounted:
            return
        self.set_class(self.demo, "-demo")
        self._put("model", Content(self.model))
        activity = self.activity
        shown = activity_text(activity)
        retrying = activity is Activity.RETRYING and self.retry_until > 0
        if retrying:
            left = max(0, math.ceil(self.retry_until - time.monotonic()))
            shown += f" in {left} s · esc stops"
        self._tick(retrying)
        label = self._put("activity", shown)
        label.set_class(activity_busy(activity), "-busy")
        label.set_class(activity is Activity.APPROVAL, "-approval")
        narrow = self.has_class("-narrow")
        mode = self._put("mode", f"{'' if narrow else 'mode: '}{self.mode}" if self.mode else "")
        mode.display = bool(self.mode)
        tone = mode_tone(self.mode)
        mode.set_class(tone == "relaxed", "-relaxed")
        mode.set_class(tone == "plan", "-plan")
        sandbox = self._put("sandbox", self.sandbox.split(" ")[0] if narrow else self.sandbox)
        sandbox.set_class(bool(self.sandbox), "-shown")
        sandbox.set_class(self.sandbox_warn, "-warn")
        sandbox.tooltip = self.sandbox_tooltip or None
        tokens = f"{format_tokens(self.input_tokens)} in · {format_tokens(self.output_tokens)} out"
        self._put("tokens", tokens)
        self._sync_meter()
        self._put("cwd", Content(one_line_path(self.cwd)))
        mcp = self.query_one("#mcp", Static)
        servers = self.mcp_connected + self.mcp_failed + self.mcp_connecting
        mcp.set_class(servers > 0, "-shown")
        mcp.set_class(self.mcp_failed > 0, "-failed")
        parts = [f"MCP {self.mcp_connected}{'' if narrow else ' connected'}"]
        if self.mcp_failed:
            parts.append(f"{self.mcp_failed}{'✗' if narrow else ' failed'}")
        if self.mcp_connecting:
            parts.append(f"{self.mcp_connecting}{'…' if narrow else ' connecting'}")
        self._put("mcp", " · ".join(parts) if servers else "")

    def _tick(self, on: bool) -> None:
        """A countdown redraws once a second while it runs."""
        if on and self._ticker is None:
            self._ticker = self.set_interval(1.0, self._sync)
        elif not on and self._ticker is not None:
            self._ticker.stop()
            self._ticker = None

    def _sync_meter(self) -> None:
        meter = self.query_one("#context", Static)
        window = self.context_window
        shown = window > 0
        percent = 100 * self.context_tokens / window if shown else 0
        meter.set_class(shown, "-shown")
        meter.set_class(METER_WARN <= percent <= METER_FULL, "-warn")
        meter.set_class(percent > METER_FULL, "-full")
        self._put(
            "context",
            meter_text(self.context_tokens, window, self.context_estimated) if shown else "",
        )

    watch_context_tokens = watch_context_window = watch_context_estimated = _sync
    watch_model = watch_demo = watch_activity = watch_mode = watch_retry_until = _sync
    watch_input_tokens = watch_output_tokens = watch_cwd = _sync
    watch_mcp_connected = watch_mcp_failed = watch_mcp_connecting = _sync
    watch_sandbox = watch_sandbox_warn = watch_sandbox_tooltip = _sync
