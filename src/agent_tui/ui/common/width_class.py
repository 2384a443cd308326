"""The width class a screen starts with (``HORIZONTAL_BREAKPOINTS``): given at construction,
the first layout finds it already right instead of restyling the whole screen to set it."""

from __future__ import annotations

from textual._context import active_app


def width_class(narrow_below: int) -> str:
    """``-narrow`` when the running app is narrower than ``narrow_below`` columns, else
    ``-wide``; empty when no app runs."""
    try:
        width = active_app.get().size.width
    except LookupError:
        return ""
    return "-narrow" if width < narrow_below else "-wide"
