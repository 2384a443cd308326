"""The conversation exported for people (``/export``, ``agent-tui export``): its entries in a
documented, stable shape (``entries``), written as Markdown or JSON (``render``), to a file
that never overwrites another unless named, atomically (``target``).

May import: conversation, transcript, events, calls, budget, and ``tools.files.safe_open``
(the atomic replace). Never the agent loop, providers or the UI.
"""

from agent_tui.core.export.entries import ExportDoc, export_doc
from agent_tui.core.export.render import FORMATS, Format, render
from agent_tui.core.export.run import export_conversation, format_for, session_info
from agent_tui.core.export.target import ExportError, default_name, write_export

__all__ = [
    "FORMATS",
    "ExportDoc",
    "ExportError",
    "Format",
    "default_name",
    "export_conversation",
    "export_doc",
    "format_for",
    "render",
    "session_info",
    "write_export",
]
