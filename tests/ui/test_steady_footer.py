"""The footer is rebuilt only when the keys it shows change."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widget import Widget
from textual.widgets._footer import FooterKey

from agent_tui.ui.common.steady_footer import SteadyFooter


class Card(Widget, can_focus=True):
    BINDINGS = [Binding("o", "noop", "Open")]
    DEFAULT_CSS = "Card { height: 1; }"

    def action_noop(self) -> None:
        pass


class Other(Widget, can_focus=True):
    BINDINGS = [Binding("x", "noop", "Delete")]
    DEFAULT_CSS = "Other { height: 1; }"

    def action_noop(self) -> None:
        pass


class FooterApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Card(id="a")
        yield Card(id="b")
        yield Other(id="c")
        yield SteadyFooter()


def shown(app: App[None]) -> list[str]:
    return [key.description for key in app.screen.query(FooterKey)]


async def test_same_keys_keep_the_footer_and_new_keys_rebuild_it() -> None:
    app = FooterApp()
    async with app.run_test(size=(80, 10)) as pilot:
        app.query_one("#a").focus()
        await pilot.pause()
        assert "Open" in shown(app)
        before = list(app.screen.query(FooterKey))
        app.query_one("#b").focus()  # the same keys: nothing to rebuild
        await pilot.pause()
        assert list(app.screen.query(FooterKey)) == before
        app.query_one("#c").focus()  # other keys: rebuilt
        await pilot.pause()
        assert "Delete" in shown(app)
        assert "Open" not in shown(app)
        app.query_one("#a").focus()
        await pilot.pause()
        assert "Open" in shown(app)
