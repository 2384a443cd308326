"""The main screen: chat and tool lane side by side (stacked when narrow), prompt, status.

Layout and focus only: the app routes agent events to the widgets this screen composes.
"""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.dom import DOMNode
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Header, Input, TextArea

from agent_tui.ui.calls.state import Clock
from agent_tui.ui.chat.chat_view import ChatView
from agent_tui.ui.common.steady_footer import SteadyFooter
from agent_tui.ui.jobs import JobsPanel
from agent_tui.ui.lane.tool_lane import ToolLane
from agent_tui.ui.plan import PlanPanel
from agent_tui.ui.shell.prompt_input import PromptInput
from agent_tui.ui.shell.queued_messages import QueuedMessages
from agent_tui.ui.shell.status_bar import StatusBar

NARROW_BELOW = 100
SHORT_BELOW = 30
"""Rows below which the plan panel shows its one line."""


class MainScreen(Screen[None]):
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (NARROW_BELOW, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (SHORT_BELOW, "-tall")]

    BINDINGS = [
        Binding("tab", "cycle_focus(1)", "Focus", show=False, id="focus.next"),
        Binding("shift+tab", "app.cycle_mode", "Mode", id="mode"),
        Binding("ctrl+t", "toggle_lane", "Lane", id="lane.toggle"),
        Binding("ctrl+o", "app.open_spill", "Spills", id="spills.open"),
        Binding("ctrl+g", "app.mcp_panel", "MCP", id="mcp.open"),
    ]

    def __init__(
        self,
        clock: Clock,
        *,
        status: StatusBar,
        prompt: PromptInput,
        queued: QueuedMessages | None = None,
    ) -> None:
        """``status``, ``prompt`` and ``queued`` (the messages typed during a turn, under the
        prompt) are made by the app, bound to its state."""
        super().__init__()
        self.clock = clock
        self._status = status
        self._prompt = prompt
        self._queued = queued
        if queued is not None:
            prompt.up_from_empty = queued.select_last
            prompt.empty_submit = queued.queue.send_next

    def compose(self) -> ComposeResult:
        yield Header(icon="◆")
        with Horizontal(id="body"):
            yield ChatView(id="chat")
            with Vertical(id="side"):
                yield PlanPanel(id="plan")
                yield JobsPanel(id="jobs")
                yield ToolLane(self.clock, id="lane")
        yield self._prompt.menu  # the prompt's completion menu, just above it
        yield self._prompt.tray  # the images waiting to go with the message
        yield self._prompt
        if self._queued is not None:
            yield self._queued
        yield self._status
        yield SteadyFooter()

    def on_mount(self) -> None:
        self.prompt.focus()
        self.watch(self.lane, "empty", self._lane_empty)

    def _lane_empty(self, empty: bool) -> None:
        """Narrow, the side folds away while its lane has no call (``app.tcss``)."""
        self.query_one("#side").set_class(empty, "-lane-empty")

    def on_key(self, event: events.Key) -> None:
        """A printable key nothing focused uses goes to the prompt (focus on the chat, on no
        widget after a screen closed, one Tab too many): typed text is never lost."""
        character = event.character
        if not event.is_printable or character is None:
            return
        focused = self.focused
        if focused is self.prompt:
            # The prompt takes its own printable keys (they never bubble here): this one was
            # queued at the widget that had the focus before a key of the same burst moved it
            # here, and it follows the focus.
            if self.prompt.read_only:
                return
        elif isinstance(focused, (Input, TextArea)):
            return  # a field of some widget
        elif event.key in self.app.active_bindings or _bound(focused, event.key):
            return  # a key of the focused card (even where it does nothing), the chat, the app
        event.stop()
        event.prevent_default()
        # at once, not scheduled (``focus()`` is): the keys of a fast burst already queued
        # behind this one must reach the prompt too, not the card that had the focus
        self.set_focus(self.prompt)
        self.prompt.insert(character)

    # -- parts (for the app to route to) ---------------------------------------------------

    @property
    def chat(self) -> ChatView:
        return self.query_one("#chat", ChatView)

    @property
    def lane(self) -> ToolLane:
        return self.query_one("#lane", ToolLane)

    @property
    def jobs(self) -> JobsPanel:
        return self.query_one("#jobs", JobsPanel)

    @property
    def plan(self) -> PlanPanel:
        return self.query_one("#plan", PlanPanel)

    @property
    def prompt(self) -> PromptInput:
        return self.query_one("#prompt", PromptInput)

    @property
    def status(self) -> StatusBar:
        return self.query_one("#status", StatusBar)

    # -- the queued messages --------------------------------------------------------------

    def on_queued_messages_edit(self, event: QueuedMessages.Edit) -> None:
        """A queued message goes back into the prompt to be edited (after what is there)."""
        prompt = self.prompt
        draft = prompt.text.rstrip()
        prompt.load_text(f"{draft}\n{event.text}" if draft else event.text)
        prompt.move_cursor(prompt.document.end)
        prompt.focus()

    def on_queued_messages_leave(self) -> None:
        self.prompt.focus()

    # -- actions ---------------------------------------------------------------------------

    def action_toggle_lane(self) -> None:
        body = self.query_one("#body")
        body.toggle_class("-lane-hidden")
        if body.has_class("-lane-hidden") and self._region(self.focused) == 2:
            self.prompt.focus()

    def _region(self, widget: Widget | None) -> int:
        """0 prompt, 1 chat, 2 lane, -1 elsewhere."""
        for index, part in enumerate((self.prompt, self.chat, self.lane)):
            node = widget
            while node is not None:
                if node is part:
                    return index
                node = node.parent if isinstance(node.parent, Widget) else None
        return -1

    def action_cycle_focus(self, step: int) -> None:
        """Tab walks prompt → chat → lane (its last focused card), skipping what is hidden."""
        current = max(0, self._region(self.focused))
        lane_shown = not self.query_one("#body").has_class("-lane-hidden")
        for offset in range(1, 4):
            region = (current + step * offset) % 3
            if region == 0:
                self.prompt.focus()
                return
            if region == 1:
                self.chat.focus()
                return
            if region == 2 and lane_shown and self.lane.focus_lane():
                return


def _bound(widget: Widget | None, key: str) -> bool:
    """``key`` is one of the keys the focused widget or its containers declare (``BINDINGS``),
    whether or not the action is available right now."""
    node: DOMNode | None = widget
    while node is not None and not isinstance(node, Screen):
        for cls in type(node).__mro__:
            for binding in vars(cls).get("BINDINGS", ()):
                keys = binding.key if isinstance(binding, Binding) else binding[0]
                if key in (k.strip() for k in keys.split(",")):
                    return True
        node = node.parent
    return False
