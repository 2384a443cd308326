"""A footer that is rebuilt only when what it shows changes.

Textual's ``Footer`` recomposes (a widget per key, each styled anew) whenever the screen says
its bindings may have changed — on every focus move and screen switch. Moving between lane
cards, or opening a screen (six such signals), mostly leaves the keys exactly as they were.
This footer compares what it would show with what it shows and skips the rebuild when they
are the same: a screen opens ~40% faster and j/k between cards no longer rebuilds the footer.
Signals that come while a rebuild is queued add nothing (it reads the keys when it runs:
opening the spill browser queued four identical rebuilds).

Each key it builds starts in the footer's own compact state. Textual's ``FooterKey`` starts
compact and is then bound to the footer's (not compact): two class changes per key, each
restyling it at once, on every rebuild — 24 restyles for a footer of 12 keys, about a third
of what opening the spill browser cost (``bench_screens.py`` profile).
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

Signature = tuple[object, ...]


class SteadyFooter(Footer):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._shown: Signature | None = None
        self._rebuilding = False
        """A rebuild is queued (it reads the keys when it runs: more signals add nothing)."""

    def _signature(self) -> Signature:
        """What ``compose`` would show: every shown key, its label, state and tooltip."""
        app = self.app
        keys = tuple(
            (
                binding.key,
                app.get_key_display(binding),
                binding.description,
                binding.action,
                binding.group,
                enabled,
                tooltip,
            )
            for (_, binding, enabled, tooltip) in self.screen.active_bindings.values()
            if binding.show or binding.action == "command_palette"
        )
        return (self.compact, self.show_command_palette, keys)

    def compose(self) -> ComposeResult:
        self._rebuilding = False
        if self._bindings_ready:
            self._shown = self._signature()
        for widget in super().compose():
            if isinstance(widget, FooterKey):
                # Before it is mounted: its watcher then finds the class already right. The
                # palette's key is not bound to the footer: it keeps the key's default,
                # compact (were that to change, its watcher would take the class off again).
                # (Reading ``widget.compact`` here would run that watcher, restyling it.)
                if widget.has_class("-command-palette"):
                    widget.set_class(True, "-compact", update=False)
                else:
                    widget.set_reactive(FooterKey.compact, self.compact)
                    widget.set_class(self.compact, "-compact", update=False)
            yield widget

    def bindings_changed(self, screen: Screen) -> None:
        attached = self.is_attached and screen is self.screen and screen.app.app_focus
        if attached and self._bindings_ready and self._rebuilding:
            return  # the rebuild queued reads the keys when it runs
        unchanged = attached and self._bindings_ready and self._signature() == self._shown
        if not unchanged:
            self._rebuilding = attached  # Footer queues a rebuild only then
            super().bindings_changed(screen)
