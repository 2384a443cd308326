"""Keys typed before the app could read them (``cli.start_keys.typed_ahead``: taken out of the
terminal's queue just before Textual's driver starts), posted to the app as the driver posts
what it reads, and ahead of it: the app gets them in the order they were typed."""

from __future__ import annotations

from typing import Any

from textual.app import App


def post_typed_ahead(app: App[Any], text: str) -> int:
    """Post ``text``'s keys (parsed as the driver parses the terminal) to ``app``; how many.
    A lone Escape at the very end, which the parser holds until more input or a pause, is
    left out: it would have done nothing before the app's first frame."""
    if not text:
        return 0
    from textual._xterm_parser import XTermParser  # the driver's own parser (private)

    posted = 0
    for event in XTermParser().feed(text):
        event.set_sender(app)
        app.post_message(event)
        posted += 1
    return posted
