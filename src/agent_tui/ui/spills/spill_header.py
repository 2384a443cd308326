"""The header of the viewer: which spill (tool, call, when, size; what the call was; whether
a live message points to it) and which window — "lines a–b of N" and the read_file call that
returns exactly this window (its path names the file)."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from agent_tui.core.browse import SpillEntry, SpillWindow
from agent_tui.core.text.summary import plural
from agent_tui.core.tools.builtin import read_file
from agent_tui.ui.spills.spill_list import size_text, when_text


class SpillHeader(Static):
    DEFAULT_CSS = """
    SpillHeader {
        height: auto;
        padding: 0 1;
        background: $surface;
        border-bottom: hkey $primary 40%;
        & .-gone { color: $text-warning; }
    }
    """

    def show(
        self, name: str, entry: SpillEntry | None, window: SpillWindow | None, gone: bool
    ) -> None:
        self.update(header_content(name, entry, window, gone))


def header_content(
    name: str, entry: SpillEntry | None, window: SpillWindow | None, gone: bool
) -> Content:
    lines: list[Content] = []
    if entry is None:
        lines.append(Content.styled(name, "bold"))
    else:
        parts = [entry.call_id, when_text(entry)]
        if entry.lines is not None and entry.chars is not None:
            parts += [plural(entry.lines, "line"), plural(entry.chars, "char")]
        parts.append(size_text(entry.bytes))
        lines.append(
            Content.assemble((entry.tool, "bold"), ("  " + " · ".join(parts), "$text-muted"))
        )
        if entry.summary:
            lines.append(Content(entry.summary))
        if entry.referenced:
            own = entry.referenced_by == f"the result of {entry.tool} {entry.call_id}"
            who = "its call's result" if own else entry.referenced_by
            lines.append(Content.styled(f"● live: {who} points to it", "$text-success"))
        else:
            lines.append(Content.styled("○ no live message points to it", "$text-muted"))
    if window is not None:
        lines.append(
            Content.assemble(
                (window.span, "bold $text-accent"), ("   ", ""), (window.call, "$text-secondary")
            )
        )
        if window.capped:
            lines.append(
                Content.styled(
                    f"read_file's {read_file.MAX_WINDOW_CHARS:,}-character cap ends this window "
                    f"before {window.limit:,} lines; PgDn goes on at line {window.last + 1:,}.",
                    "$text-muted italic",
                )
            )
    if gone:
        lines.append(
            Content.styled(
                "This spill was deleted from disk: what you see is the last window read.",
                "bold $text-warning",
            )
        )
    return Content("\n").join(lines)
