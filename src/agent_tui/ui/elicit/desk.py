"""The TUI's elicitation handler: servers' requests for input, shown one at a time.

``ElicitationDesk.ask`` is the ``ElicitationHandler`` the app gives each MCP manager
(``attach``): requests wait their turn (several servers may ask at once), then a form
(``ElicitFormScreen``) or a URL prompt (``ElicitUrlScreen``) shows the oldest. A request the
core declined by itself (a schema it cannot show, a URL that is not http(s)) becomes a
warning notice, with the core's reason.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from agent_tui.core.mcp.client.elicitation import (
    ElicitationAnswer,
    ElicitationNotice,
    ElicitationRequest,
    FormRequest,
)

if TYPE_CHECKING:
    from textual.app import App

    from agent_tui.ui.elicit.url_screen import Opener


class ElicitationDesk:
    def __init__(
        self, app: App[Any], *, cursor_blink: bool = True, opener: Opener | None = None
    ) -> None:
        self.app = app
        self.cursor_blink = cursor_blink
        self.opener = opener
        self._turn = asyncio.Lock()
        self.showing: ElicitationRequest | None = None

    async def ask(self, request: ElicitationRequest) -> ElicitationAnswer:
        async with self._turn:
            from agent_tui.ui.elicit.form_screen import ElicitFormScreen
            from agent_tui.ui.elicit.url_screen import ElicitUrlScreen

            future: asyncio.Future[ElicitationAnswer] = asyncio.get_running_loop().create_future()

            def answered(answer: ElicitationAnswer | None) -> None:
                if not future.done():
                    future.set_result(answer or ElicitationAnswer("cancel"))

            screen: ElicitFormScreen | ElicitUrlScreen
            if isinstance(request, FormRequest):
                screen = ElicitFormScreen(request, cursor_blink=self.cursor_blink)
            else:
                screen = ElicitUrlScreen(request, opener=self.opener)
            self.showing = request
            self.app.push_screen(screen, callback=answered)
            try:
                return await future
            except asyncio.CancelledError:  # the call was abandoned (interrupt, timeout)
                if screen.is_attached and self.app.screen is screen:
                    self.app.pop_screen()
                raise
            finally:
                self.showing = None

    def notice(self, notice: ElicitationNotice) -> None:
        self.app.notify(notice.reason, title="MCP input declined", severity="warning")


def attach(desk: ElicitationDesk, sources: Iterable[object]) -> list[Callable[[], object]]:
    """Make ``desk`` the elicitation handler of every source that has one (MCP managers);
    returns the unsubscribe callables of its notice listeners."""
    stops: list[Callable[[], object]] = []
    for source in sources:
        broker = getattr(source, "elicitation", None)
        if broker is None:
            continue
        broker.handler = desk.ask
        stops.append(broker.add_listener(desk.notice))
        stops.append(functools.partial(_detach, broker, desk))
    return stops


def _detach(broker: Any, desk: ElicitationDesk) -> None:
    if broker.handler == desk.ask:  # the manager may outlive the app: nobody to ask now
        broker.handler = None
