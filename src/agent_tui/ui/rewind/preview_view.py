"""What rewinding to before a turn would do: each file with its +/− and what happens to it,
the files a rewind cannot restore (what run_shell changed where the checkpoint keeps nothing:
ignored files, files too big), the files changed since by someone else and those inside
``.git`` (kept unless the user says otherwise), and what happens to the conversation."""

from __future__ import annotations

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from agent_tui.core.conversation.rewind import RewindPreview
from agent_tui.ui.common.format import plural
from agent_tui.ui.rewind.words import (
    code_summary,
    conversation_summary,
    counts,
    file_action,
    outside_line,
)

MAX_OUTSIDE = 12
"""Not-restorable paths listed; beyond, a count."""


def preview_content(preview: RewindPreview, *, overwrite: bool) -> Content:
    """The preview as lines of text (``overwrite``: files changed since will be overwritten)."""
    turn = preview.turn
    title = "the last code rewind" if turn.kind == "rewind" else f"turn {turn.number}"
    lines: list[Content] = [
        Content.assemble(("Before ", "bold"), (title, "bold $accent")),
        Content(conversation_summary(preview)),
        Content(code_summary(preview)),
    ]
    files = preview.files
    width = max((cell_len(f.shown) for f in files), default=0)
    for f in files:
        flagged = (f.changed_since or f.git) and f.action in ("restore", "delete", "recreate")
        mark = ("⚠ ", "bold $warning") if flagged else ("  ", "")
        name_style = "$warning" if flagged else ""
        number = counts(f)
        line = Content.assemble(
            mark,
            (f.shown.ljust(width), name_style),
            "  ",
            (number.ljust(9), "$text-success" if number.startswith("+") else "dim"),
            (file_action(f), "dim"),
        )
        lines.append(line)
        if flagged:
            then = "overwritten (o: keep it)" if overwrite else "kept unless you press o"
            what = "changed since by someone else: " if f.changed_since else ""
            what += "inside .git (git's own data): " if f.git else ""
            lines.append(Content.assemble("    ", (what, "$warning"), (then, "$warning")))
        if f.partial:
            lines.append(
                Content.assemble(
                    "    ",
                    ("run_shell changed it first: restores its content after that", "dim"),
                )
            )
    outside = preview.outside
    if outside.changes or outside.more:
        tools = {n.tool for n in outside.changes}
        by = next(iter(tools)) if len(tools) == 1 else "other tools"
        lines.append(
            Content.assemble(("Not restorable", "bold $error"), f" · changed by {by}, not kept:")
        )
        shown_outside = outside.changes[:MAX_OUTSIDE]
        width = max((cell_len(n.shown) for n in shown_outside), default=0)
        for change in shown_outside:
            lines.append(
                Content.assemble(
                    "  ", change.shown.ljust(width), "  ", (outside_line(change, by), "dim")
                )
            )
        more = len(outside.changes) - len(shown_outside) + outside.more
        if more:
            lines.append(Content(f"  … and {plural(more, 'more file')}"))
    if outside.truncated:
        lines.append(
            Content.assemble(
                ("  the workspace scan stopped at its limit: ", "dim"),
                ("changes beyond it were not looked for", "dim"),
            )
        )
    return Content("\n").join(lines)


class RewindPreviewView(VerticalScroll):
    DEFAULT_CSS = """
    RewindPreviewView {
        height: 1fr;
        padding: 0 1;
        background: $surface;
        scrollbar-size-vertical: 1;
        &:focus { background-tint: transparent; }
        & > #preview-text { width: 1fr; }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, can_focus=False)
        self.preview: RewindPreview | None = None
        self.overwrite = False

    def compose(self) -> ComposeResult:
        yield Static("", id="preview-text")

    def show(self, preview: RewindPreview | None, *, overwrite: bool = False) -> None:
        """Show ``preview`` (None: still reading the files)."""
        self.preview, self.overwrite = preview, overwrite
        text = self.query_one("#preview-text", Static)
        if preview is None:
            text.update(Content.styled("Reading the files…", "dim"))
        else:
            text.update(preview_content(preview, overwrite=overwrite))

    def show_error(self, message: str) -> None:
        self.preview = None
        self.query_one("#preview-text", Static).update(Content.styled(message, "$error"))
