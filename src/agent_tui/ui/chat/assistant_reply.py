"""One assistant message (or one part of a long one) in the chat: Markdown, one widget."""

from __future__ import annotations

from textual.content import Content
from textual.geometry import Size
from textual.widget import Widget

from agent_tui.ui.chat.markdown_lines import Palette, palette, render
from agent_tui.ui.chat.part_splitter import PartSplitter

SEGMENT_CHARS = 400
"""A streamed part is drawn as segments of about this many characters, each a Markdown
document of its own cut where a part may end (``PartSplitter``): a segment once complete is
rendered once per width, so a write re-renders only the open segment at the end, not the whole
part (rendering costs ~5–7 µs a character: a 3,000-character part was ~20 ms on every write)."""


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
        self._drawn_from: tuple[int, str] = (-1, "")
        """What ``_drawn`` was drawn from: the text's length, the theme (not ``last``: it
        only adds a blank line below, so a part that ends is not rendered again for it)."""
        self._drawn: dict[int, Content] = {}
        """The lines at each width asked for since (a layout asks for more than one: with
        and without the chat's scrollbar)."""
        self._rendered: dict[tuple[int, bool], Content] = {}
        """…and with the blank line below of a part that is not the last, by (width, last)."""
        self._cuts: list[int] = []
        """Where the complete segments of a streamed text end (``SEGMENT_CHARS``)."""
        self._segmenter: PartSplitter | None = None
        """Where the open segment may end (made at the first write)."""
        self._segments: dict[tuple[int, int], Content] = {}
        """Complete segments drawn in the current theme, by (where the segment starts, width)."""

    @property
    def streaming(self) -> bool:
        return self._streaming

    async def write(self, fragment: str) -> None:
        """Append ``fragment`` (drawn at the next frame)."""
        self._streaming = True
        if self._segmenter is None:  # what the part was made with opens the first segment
            self._segmenter = PartSplitter(SEGMENT_CHARS)
            self._cut_segments(self.text)
        self.text += fragment
        self._cut_segments(fragment)
        self.refresh(layout=True)

    def _cut_segments(self, fragment: str) -> None:
        """Feed ``fragment`` (the end of ``text``) to the segmenter; note where each segment
        it completes ends."""
        assert self._segmenter is not None
        while fragment:
            cut = self._segmenter.feed(fragment)
            if cut is None:
                return
            self._cuts.append((self._cuts[-1] if self._cuts else 0) + len(self._segmenter.text))
            self._segmenter = PartSplitter(SEGMENT_CHARS)
            fragment = fragment[cut:]

    async def finish(self, *, last: bool = True) -> None:
        """The part is complete; ``last``: nothing of the reply follows it."""
        self._streaming = False
        # the complete segments stay cached until the part's final text is drawn (``lines``):
        # it ends at a slice's end, before that text was ever drawn, and the next frame then
        # renders only its open segment, not the whole part again
        if len(self.text) == self._drawn_from[0]:
            self._segments.clear()  # drawn whole already (``_drawn``): they only hold objects
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
        drawn_from = (len(self.text), self.app.theme)
        if drawn_from != self._drawn_from:
            if drawn_from[1] != self._drawn_from[1]:
                self._segments.clear()
            self._drawn_from = drawn_from
            self._drawn.clear()
            self._rendered.clear()
        key = (width, self.last)
        if (content := self._rendered.get(key)) is not None:
            return content
        drawn = self._drawn.get(width)
        if drawn is None:
            drawn = self._draw(width)
            if not self._streaming:  # the final text is drawn: its segments are not needed
                self._segments.clear()
            if len(self._drawn) >= 4:
                self._drawn.clear()
            self._drawn[width] = drawn
        content = drawn.append("\n") if not self.last and drawn else drawn
        if len(self._rendered) >= 4:
            self._rendered.clear()
        self._rendered[key] = content
        self.source = self.text
        return content

    def _draw(self, width: int) -> Content:
        """The text's segments drawn one after the other, a blank line between them (as parts
        are shown): the complete ones from their cache, the open one rendered now."""
        pal = self._palette()
        drawn: list[Content] = []
        start = 0
        for end in self._cuts:
            segment = self._segments.get((start, width))
            if segment is None:
                text = self.text[start:end]
                segment = render(text, width, pal) if text.strip() else Content()
                if len(self._segments) >= 4 * (len(self._cuts) + 1):  # widths no longer used
                    self._segments.clear()
                self._segments[(start, width)] = segment
            if segment:
                drawn.append(segment.append("\n"))
            start = end
        tail = self.text[start:]
        if tail.strip():
            drawn.append(render(tail, width, pal))
        elif drawn:  # nothing after the last blank line yet: no gap below it either
            drawn[-1] = drawn[-1][:-1]
        return Content("\n").join(drawn) if drawn else Content()

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return container.width

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        content = self.lines(width)
        return content.plain.count("\n") + 1 if content else 0

    def render(self) -> Content:
        return self.lines(self.content_region.width or self.size.width)


_palettes: dict[str, Palette] = {}
"""The palette of each theme, made when a reply is first drawn in it."""
