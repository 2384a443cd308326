"""The shell's status bar: what ``StatusBar`` shows before the core exists (the DEMO badge, the
model, "● starting", the permission mode when the command line gives it, the tokens at zero,
the cwd on the right), drawn as one line by one widget.

``StatusBar`` is ten widgets (a label per field, most hidden until a figure is known); styling
and laying out those ten was about a fifth of what the first frame cost beyond a bare Textual
app (``bench_startup.py``). The shell needs none of its later states: the main screen, with the
real status bar, replaces it once the core is built. The looks are ``StatusBar``'s, through
component classes of the same colours.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from agent_tui.ui.shell.activity import Activity, activity_busy, activity_text, mode_tone

GAP = "  "
"""``StatusBar``'s ``margin-right: 2`` between its labels."""


class ShellStatus(Widget):
    DEFAULT_CSS = """
    ShellStatus {
        height: 1;
        background: $panel;
        color: $text-muted;
        padding: 0 1;
        text-wrap: nowrap;
    }
    ShellStatus > .shell-status--badge {
        background: $warning; color: $background; text-style: bold;
    }
    ShellStatus > .shell-status--model { color: $foreground; text-style: bold; }
    ShellStatus > .shell-status--busy { color: $primary; text-style: bold; }
    ShellStatus > .shell-status--relaxed { color: $warning; }
    ShellStatus > .shell-status--plan { color: $accent; }
    """
    COMPONENT_CLASSES = {
        "shell-status--badge",
        "shell-status--model",
        "shell-status--busy",
        "shell-status--relaxed",
        "shell-status--plan",
    }

    model: reactive[str] = reactive("")
    demo: reactive[bool] = reactive(False)
    activity: reactive[Activity] = reactive(Activity.STARTING)
    mode: reactive[str] = reactive("")
    cwd: reactive[str] = reactive("")

    def render(self) -> Text:
        style = self.get_component_rich_style
        line = Text(no_wrap=True, overflow="ellipsis", end="")
        if self.demo:
            line.append(" DEMO ", style("shell-status--badge"))
            line.append(" ")
        line.append(self.model, style("shell-status--model"))
        line.append(GAP)
        activity = self.activity
        busy = activity_busy(activity)
        line.append(activity_text(activity), style("shell-status--busy") if busy else "")
        if self.mode:
            line.append(GAP)
            tone = mode_tone(self.mode)
            line.append(f"mode: {self.mode}", style(f"shell-status--{tone}") if tone else "")
        line.append(GAP)
        line.append("0 in · 0 out")
        room = self.content_size.width - cell_len(line.plain) - len(GAP)
        cwd = self.cwd
        if room >= 2 and cwd:  # right-aligned, cut with an ellipsis where it does not fit
            shown = cwd if cell_len(cwd) <= room else cwd[: room - 1] + "…"
            line.append(" " * (room - cell_len(shown) + len(GAP)) + shown)
        return line
