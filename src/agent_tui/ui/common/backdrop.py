"""A translucent modal's backdrop — the screen under it, dimmed — drawn line by line.

Textual draws a modal screen with a translucent background (``background: $background 60%``)
by rendering the whole screen under it through Rich on every repaint of the modal: the screen
under it composited again, every segment re-coloured one by one, every line split and cropped
again, even when one cell under it changed (a spinner's tick) or only the modal's own parts
did. A full repaint of the permission prompt cost 14-17 ms of CPU that way (2026-12-07, a
loaded 2-CPU VM; ``benchmarks/bench_screens.py``), 4-8 ms now.

Here the modal's own lines are the lines of the screen under it, taken from that screen's
compositor (only the lines being redrawn, in one go) and tinted through a cache of the styles
seen: the same cells, the same colours (``tests/ui/test_backdrop.py``). They are kept until
the screen under it reports a change in them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Self

from rich.segment import Segment
from rich.style import Style
from textual.color import Color
from textual.geometry import Region
from textual.strip import Strip

if TYPE_CHECKING:
    from textual.screen import Screen

    _Base = Screen[Any]
else:
    _Base = object

_STYLES_KEPT = 4096
"""Tinted styles remembered per screen (a theme change brings new ones)."""


class Backdrop(_Base):
    """Mix in before the modal screen class: ``class Prompt(Backdrop, ModalScreen[bool])``.

    The tinted lines are kept until the screen under this one says they changed (Textual
    refreshes the top screen's regions over what changed below): the modal's own refreshes
    (its layout, the dialog's parts) do not composite the screen under it again.
    """

    _crop: Region | None = None
    _kept: dict[int, Strip] | None = None
    _kept_for: tuple[object, ...] = ()
    _tinted: dict[tuple[Style | None, Color, Style], Style] | None = None

    def _under(self) -> Screen[Any] | None:
        """The screen this one is drawn over, when its background lets it show and that
        screen is opaque (over another translucent one, Textual draws the stack itself)."""
        if self.styles.background.a >= 1 or any(self.styles.gutter):
            return None
        stack = self.app.screen_stack
        if self not in stack:
            return None
        index = stack.index(self)
        under = stack[index - 1] if index > 0 else None
        if under is None or under.styles.background.a < 1:
            return None
        return under

    def refresh(
        self,
        *regions: Region,
        repaint: bool = True,
        layout: bool = False,
        recompose: bool = False,
    ) -> Self:
        kept = self._kept
        if kept and repaint:  # the regions of the screen under this one that changed
            for region in regions:
                for y in region.line_range:
                    kept.pop(y, None)
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    def on_screen_suspend(self) -> None:
        self._kept = None  # what is under it may change while it is away

    def render_lines(self, crop: Region) -> list[Strip]:
        self._crop = crop  # the lines this pass draws
        try:
            return super().render_lines(crop)
        finally:
            self._crop = None

    def render_line(self, y: int) -> Strip:
        under = self._under()
        compositor = getattr(under, "_compositor", None)
        render_chops = getattr(compositor, "_render_chops", None)
        if under is None or render_chops is None:
            return super().render_line(y)
        self._dirty_regions.clear()  # Textual's own render of the content is not used
        color = self.styles.background
        base = self.visual_style.rich_style
        key = (under, self.size, color, base)
        kept = self._kept
        if kept is None or key != self._kept_for:
            kept = self._kept = {}
            self._kept_for = key
        line = kept.get(y)
        if line is None:
            self._draw(kept, render_chops, y, color, base)
            line = kept.get(y)
        if line is None:
            return Strip.blank(self.size.width, base)
        return line

    def _draw(
        self, kept: dict[int, Strip], render_chops: Any, y: int, color: Color, base: Style
    ) -> None:
        """Tint the lines this pass draws (from ``y`` on) that are not kept, taken from the
        screen under this one in one go."""
        width, height = self.size
        crop = self._crop
        top, bottom = (crop.y, crop.bottom) if crop is not None else (y, y + 1)
        if not top <= y < bottom:
            top, bottom = y, y + 1
        wanted = [row for row in range(y, min(bottom, height)) if row not in kept]
        if not wanted:
            return
        rows = set(wanted)
        chops = render_chops(
            Region(0, wanted[0], width, wanted[-1] + 1 - wanted[0]), rows.__contains__
        )
        for row in wanted:
            if row < len(chops):
                kept[row] = self._tint(Strip.join(chops[row].values()), color, base)

    def _tint(self, strip: Strip, color: Color, base: Style) -> Strip:
        tinted = self._tinted
        if tinted is None or len(tinted) > _STYLES_KEPT:
            tinted = self._tinted = {}
        segments: list[Segment] = []
        for text, style, control in strip:
            if control:
                segments.append(Segment(text, style, control))
                continue
            key = (style, color, base)
            new = tinted.get(key)
            if new is None:
                new = tinted[key] = base + _tinted_style(style, color)
            segments.append(Segment(text, new))
        return Strip(segments, strip.cell_length)


def _tinted_style(style: Style | None, color: Color) -> Style:
    """``style`` seen through ``color``: its colours blended with it, its links dropped."""
    plain = Style() if style is None else style.clear_meta_and_links()
    if color.a == 0:
        return plain
    fore = plain.color
    back = plain.bgcolor
    return plain + Style.from_color(
        (Color.from_rich_color(fore) + color).rich_color if fore is not None else None,
        (Color.from_rich_color(back) + color).rich_color if back is not None else None,
    )
