"""A screen that is not styled a second time when it first shows.

Textual styles each widget as it mounts, then, when a pushed screen resumes for the first
time, styles the whole screen again (``ScreenResume.refresh_styles``): for a screen that was
composed a moment before, the same rules over the same classes — one full restyle, ~15% of
opening the spill browser or the MCP panel (``benchmarks/bench_screens.py --profile``). Later
resumes (back from a dialog) restyle as Textual does; a theme change restyles every screen in
the stack by itself (``App.refresh_css``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import events

if TYPE_CHECKING:
    from textual.screen import Screen

    _Base = Screen[Any]
else:
    _Base = object


class StyledOnce(_Base):
    """Mix in before the screen class: ``class Browser(StyledOnce, Screen[None])``."""

    _styled_once = False

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        if not self._styled_once:
            self._styled_once = True
            # styled as it mounted; a theme change since restyles every screen anyway
            event.refresh_styles = False
        super()._on_screen_resume(event)
