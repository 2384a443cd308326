"""One assistant message (or one part of a long one) in the chat: Markdown, one widget."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual.content import Content, Span
from textual.geometry import Size
from textual.strip import Strip
from textual.style import Style
from textual.widget import Widget

from agent_tui.ui.chat.markdown_lines import Palette, palette, render
from agent_tui.ui.chat.part_splitter import PartSplitter

if TYPE_CHECKING:
    from textual.css.types import TextAlign, TextOverflow

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
        self._prefixes: dict[tuple[int, int], Content] = {}
        """The complete segments joined (each with the blank line below it), by (width, how
        many): a frame joins that and the open segment, not every segment again."""
        self._split_from: Content | None = None
        self._split: list[Content] = []
        """``_split_from`` (what ``lines`` last gave) cut into its lines."""
        self._strips_for: tuple[int, Style] | None = None
        self._strips: dict[tuple[int, str, tuple[Span, ...]], Strip] = {}
        """The strips painted, by (line, its text, its spans), at the width and base style of
        ``_strips_for``."""
        self.strips_built = 0
        """How many lines were turned into strips (a count of work, for tests)."""

    @property
    def streaming(self) -> bool:
        return self._streaming

    async def write(self, fragment: str) -> None:
        """Append ``fragment`` (drawn at the next frame)."""
        self.append(fragment)
        self.refresh(layout=True)

    def append(self, fragment: str) -> None:
        """Append ``fragment``; ``refresh`` or ``prepare`` has it drawn."""
        self._streaming = True
        if self._segmenter is None:  # what the part was made with opens the first segment
            self._segmenter = PartSplitter(SEGMENT_CHARS)
            self._cut_segments(self.text)
        self.text += fragment
        self._cut_segments(fragment)

    def prepare(self, width: int) -> None:
        """Render the text at ``width`` now (the width the next layout asks for; 0 when not
        known), then ask for a layout: it finds the lines drawn. The Markdown rendering of a
        write is then done in the write's turn of the event loop, and the layout and paint in
        the frame's: two shorter pauses instead of one of both (a write of 3,000 characters
        was ~30 ms of rendering inside a ~70 ms frame), and keys may be read between them."""
        if width > 0:
            self.lines(width)
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
            self._prefixes.clear()
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
                self._prefixes.clear()
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
                self._prefixes.clear()
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
        key = (width, len(self._cuts))
        prefix = self._prefixes.get(key)
        if prefix is None:
            prefix = self._join_segments(width, pal)
            if len(self._prefixes) >= 4:  # fewer segments, or widths no longer used
                self._prefixes.clear()
            self._prefixes[key] = prefix
        tail = self.text[self._cuts[-1] if self._cuts else 0 :]
        if tail.strip():
            drawn = render(tail, width, pal)
            return prefix + "\n" + drawn if prefix else drawn
        # nothing after the last blank line yet: no gap below it either
        return prefix[:-1] if prefix else Content()

    def _join_segments(self, width: int, pal: Palette) -> Content:
        """The complete segments, each followed by the blank line below it (one line break,
        and the one joining it to the next)."""
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
        return Content("\n").join(drawn) if drawn else Content()

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return container.width

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        content = self.lines(width)
        return content.plain.count("\n") + 1 if content else 0

    def render(self) -> Content:
        return self.lines(self.content_region.width or self.size.width)

    def render_line(self, y: int) -> Strip:
        """Line ``y`` as a strip, made only if that line (its text and styles, at that line)
        was not painted before at this width and style. Textual's own path turns every line
        of the widget into strips whenever it changes: the whole open part on every frame of
        a stream, though only the lines in view are painted and all but the last few are as
        they were. The strip is made as Textual makes it (``Content.render_strips``), with
        the line's own ``y`` in its offsets (what mouse selection reads). Textual's path is
        kept while text is selected (it highlights the selection) and for an alignment other
        than top left. No link style is applied: the lines carry no links (``render`` shows
        a link's address as text), so Textual's pass leaves every segment as it is."""
        if self.text_selection is not None or self.styles.content_align != ("left", "top"):
            return super().render_line(y)
        width = self.size.width
        content = self.lines(self.content_region.width or width)
        if content is not self._split_from:
            self._split_from = content
            self._split = content.split(allow_blank=True)
        if y >= len(self._split) or y >= self.size.height:
            return Strip.blank(width, self.visual_style.rich_style)
        style = self.visual_style
        if self._strips_for != (width, style):
            self._strips_for = (width, style)
            self._strips.clear()
        line = self._split[y]
        key = (y, line.plain, tuple(line.spans))
        strip = self._strips.get(key)
        if strip is None:
            strip = self._strip(line, y, width, style)
            if len(self._strips) > 2 * len(self._split) + 64:  # lines long gone
                self._strips.clear()
            self._strips[key] = strip
        return strip

    def _strip(self, line: Content, y: int, width: int, style: Style) -> Strip:
        """``line`` (one line, no line break) as ``Content.render_strips`` makes line ``y``
        of a widget's content."""
        self.strips_built += 1
        get_rule = self.styles.get
        formatted = line._wrap_and_format(
            width,
            align=cast("TextAlign", get_rule("text_align", "left")),
            overflow=cast("TextOverflow", get_rule("text_overflow", "fold")),
            no_wrap=get_rule("text_wrap", "wrap") == "nowrap",
            line_pad=cast("int", get_rule("line_pad", 0)),
            tab_size=8,
            get_style=self._get_style,
        )
        if len(formatted) != 1:  # folded onto more lines: not one strip (lines fit: never)
            return super().render_line(y)
        formatted[0].y = y
        return Strip(*formatted[0].to_strip(style))


_palettes: dict[str, Palette] = {}
"""The palette of each theme, made when a reply is first drawn in it."""
