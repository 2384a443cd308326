"""The TUI's plan reviewer (``core.plan_review.PlanReviewer``): shows a proposed plan in the
``PlanReviewScreen`` and returns the user's answer.

``PlanDesk.review`` is attached to the executor's ``PlanReview`` (``attach``, with the app's
mode switch, the one Shift+Tab uses). While the plan waits the status bar says so, and the
terminal's notifications count it as an ask (``on_pending``). A review abandoned (an interrupt
cancels the call) closes its dialog.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from agent_tui.core.tools.plan_gate import PlanVerdict

if TYPE_CHECKING:
    from textual.screen import Screen

    from agent_tui.core.plan_review import ModeSwitch, PlanReview


class Screens(Protocol):
    """What of the app the desk uses: its screen stack."""

    @property
    def screen(self) -> Screen[object]: ...

    def push_screen(
        self, screen: Screen[Any], callback: Callable[[Any], None] | None = None
    ) -> object: ...

    def pop_screen(self) -> object: ...


class PlanDesk:
    def __init__(
        self,
        app: Screens,
        *,
        cursor_blink: bool = True,
        on_open: Callable[[], None] | None = None,
        on_close: Callable[[], None] | None = None,
    ) -> None:
        self.app = app
        self.cursor_blink = cursor_blink
        self.on_open = on_open
        self.on_close = on_close
        self.on_pending: Callable[[int], None] | None = None
        """Told 1 when a plan waits for the user, 0 when it no longer does."""
        self._turn = asyncio.Lock()
        self.showing: str | None = None
        """The plan on screen (None: none)."""

    def attach(self, review: PlanReview, switch: ModeSwitch) -> None:
        review.attach(self.review, switch)

    async def review(self, plan: str) -> PlanVerdict:
        async with self._turn:
            from agent_tui.ui.approval.plan_screen import PlanReviewScreen

            future: asyncio.Future[PlanVerdict] = asyncio.get_running_loop().create_future()

            def answered(verdict: PlanVerdict | None) -> None:
                if not future.done():
                    future.set_result(verdict or PlanVerdict(approved=False))

            screen = PlanReviewScreen(plan, cursor_blink=self.cursor_blink)
            self.showing = plan
            self._tell(1, self.on_open)
            self.app.push_screen(screen, callback=answered)
            try:
                return await future
            except asyncio.CancelledError:  # the call was abandoned (an interrupt)
                if screen.is_attached and self.app.screen is screen:
                    self.app.pop_screen()
                raise
            finally:
                self.showing = None
                self._tell(0, self.on_close)

    def _tell(self, pending: int, hook: Callable[[], None] | None) -> None:
        if hook is not None:
            hook()
        if self.on_pending is not None:
            self.on_pending(pending)
