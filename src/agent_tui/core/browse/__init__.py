"""The spill browser's core: what spills a session has, which path may be opened, and windows
exactly as ``read_file`` returns them. UI-free; every call costs what a window costs.

``listing`` lists a store's spills (``list_spills``); ``opening`` resolves a pointer path to a
spill or refuses it (``resolve_spill``) and reads a window (``read_window``); ``windows`` holds
the rest of the windows (a long line's segments, paging back, copying); ``delete`` deletes a
spill nothing points to; ``search`` searches one without loading it; ``refused`` is the error
they share (``SpillRefused``). This module only re-exports their public names.

It may import ``core.budget`` (the store, its index and reader), ``core.tools.builtin``
(read_file's windows), ``core.text`` and ``core.transcript``; never the UI.
"""

from agent_tui.core.browse.delete import delete_spill, session_id, why_not_delete
from agent_tui.core.browse.listing import (
    NAMED_LIKE,
    SpillEntry,
    list_spills,
    live_references,
    parse_name,
)
from agent_tui.core.browse.opening import open_reader, read_window, resolve_spill
from agent_tui.core.browse.refused import SpillRefused, gone, not_indexed
from agent_tui.core.browse.windows import (
    COPY_MAX_BYTES,
    SpillWindow,
    WindowText,
    column_of_byte,
    last_segment,
    line_of_byte,
    line_start,
    segment_of,
    window_ending_at,
    window_of,
    window_text,
)

__all__ = [
    "COPY_MAX_BYTES",
    "NAMED_LIKE",
    "SpillEntry",
    "SpillRefused",
    "SpillWindow",
    "WindowText",
    "column_of_byte",
    "delete_spill",
    "gone",
    "last_segment",
    "line_of_byte",
    "line_start",
    "list_spills",
    "live_references",
    "not_indexed",
    "open_reader",
    "parse_name",
    "read_window",
    "resolve_spill",
    "segment_of",
    "session_id",
    "why_not_delete",
    "window_ending_at",
    "window_of",
    "window_text",
]
