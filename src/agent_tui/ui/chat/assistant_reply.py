"""One assistant message (or one part of a long one) in the chat: Markdown, one widget."""

from __future__ import annotations

from textual.content import Content
from textual.geometry import Size
from textual.widget import Widget

from agent_tui.ui.chat.markdown_lines import Palette, palette, render


class AssistantReply(Widget):
    """The reply's Markdown laid out as lines (``markdown_lines``): a single widget however
    many blocks it holds, re-rendered when its text, width or theme changes, and only then.

    A long reply is several of these, one after the other (``ReplyStream`` starts a new part
    at a block boundary once a part is long), so a streamed write renders one bounded part.
    A part that is not the reply's last keeps a blank line below it, the gap between blocks."""

    DEFAULT_CSS = """
    AssistantReply {
        height: auto;
        margin: 1 0 0 0;
        padding: 0 1 0 2;
        background: transparent;
        text-wrap: nowrap;
        text-overflow: clip;
        &.-continued { margin-top: 0; }
    }
    """

    ALLOW_SELECT = True

    def __init__(self, markdown: str = "", *, continued: bool = False, last: bool = True) -> None:
        super().__init__(classes="-continued" if continued else None)
        self.text = markdown
        """Everything written so far."""
        self.last = last
        """Nothing of the same reply follows (no blank line below it)."""
        self.serial: int | None = None
        """Which reply of the chat this part belongs to (a long reply has several parts)."""
        self.source = ""
        """The text the widget was last drawn from (``text`` once the frame after a write is
        painted)."""
        self._streaming = False
        self._drawn_from: tuple[int, bool, str] = (-1, True, "")
        """What ``_rendered`` was drawn from: the text's length, ``last``, the theme."""
        self._rendered: dict[int, Content] = {}
        """The lines at each width asked for since (a layout asks for more than one: with
        and without the chat's scrollbar)."""

    @property
    def streaming(self) -> bool:
        return self._streaming

    async def write(self, fragment: str) -> None:
        """Append ``fragment`` (drawn at the next frame)."""
        self._streaming = True
        self.text += fragment
        self.refresh(layout=True)

    async def finish(self, *, last: bool = True) -> None:
        """The part is complete; ``last``: nothing of the reply follows it."""
        self._streaming = False
        if last != self.last:
            self.last = last
            self.refresh(layout=True)

    def _palette(self) -> Palette:
        app = self.app
        key = app.theme
        cached = _palettes.get(key)
        if cached is None:
            cached = _palettes[key] = palette(app.get_css_variables(), app.current_theme.dark)
        return cached

    def lines(self, width: int) -> Content:
        """The reply laid out in ``width`` cells (the last rendering, if nothing changed)."""
        drawn_from = (len(self.text), self.last, self.app.theme)
        if drawn_from != self._drawn_from:
            self._drawn_from = drawn_from
            self._rendered.clear()
        elif (content := self._rendered.get(width)) is not None:
            return content
        content = render(self.text, width, self._palette()) if self.text.strip() else Content()
        if not self.last and content:
            content = content.append("\n")
        if len(self._rendered) >= 4:
            self._rendered.clear()
        self._rendered[width] = content
        self.source = self.text
        return content

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return container.width

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        content = self.lines(width)
        return content.plain.count("\n") + 1 if content else 0

    def render(self) -> Content:
        return self.lines(self.content_region.width or self.size.width)


_palettes: dict[str, Palette] = {}
"""The palette of each theme, made when a reply is first drawn in it."""
