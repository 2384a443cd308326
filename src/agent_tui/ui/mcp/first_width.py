"""The width a widget's content will get at its first layout, read from the styles before it.

The MCP panel draws its server list and tool table when it mounts, before Textual's first
layout, when their width is still 0: drawn at a stand-in width (20 or 28 columns), the first
frame showed the tool columns laid out for 20 and the tables were drawn again at the real
width on their first resize. Here the width is worked out from the terminal's width and the
styles along the widget's ancestors (their margins, borders and padding; a width or max-width
in cells or percent), so the first frame has the real columns. When this is off (a width in fr
beside other widgets; a max-width in percent that binds, which Textual may round a cell
differently; a container that overflows), the first resize draws them again, as before.
"""

from __future__ import annotations

from textual.css.scalar import Scalar, Unit
from textual.screen import Screen
from textual.widget import Widget

_OF_CONTAINER = (Unit.PERCENT, Unit.WIDTH)


def _limit(width: int, scalar: Scalar | None, container: int, viewport: int) -> int:
    if scalar is None:
        return width
    if scalar.unit is Unit.CELLS:
        return min(width, int(scalar.value))
    if scalar.unit in _OF_CONTAINER:
        return min(width, int(container * scalar.value / 100))
    if scalar.unit is Unit.VIEW_WIDTH:
        return min(width, int(viewport * scalar.value / 100))
    return width


def content_width(widget: Widget, scrollbar: bool = False) -> int:
    """The width of ``widget``'s content region once laid out (less a vertical scrollbar when
    ``scrollbar``): its laid-out width when it has one, else worked out from the styles; at
    least 1."""
    laid_out = widget.scrollable_content_region.width
    if laid_out:
        return laid_out
    viewport = widget.app.size.width
    width = viewport
    chain = [node for node in widget.ancestors_with_self if isinstance(node, Widget)]
    for node in reversed(chain):  # the screen first
        styles = node.styles
        container = width
        if not isinstance(node, Screen):
            width -= styles.margin.width
            width = _limit(width, styles.width, container, viewport)
            width = _limit(width, styles.max_width, container, viewport)
        width -= styles.gutter.width
    if scrollbar:
        width -= widget.styles.scrollbar_size_vertical
    return max(1, width)
