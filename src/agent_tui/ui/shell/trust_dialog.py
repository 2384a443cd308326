"""The question at start-up when the project's files ask to turn things on (``core.state.trust``):
each MCP server with its command line, each allow rule, a default mode that asks less. ``t``
trusts them all (remembered for this workspace, as they are now); any other key starts
without them."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Static

from agent_tui.core.state.trust import TrustItem
from agent_tui.ui.shell.key_question import KeyQuestion

WHY = (
    "These come with the project (a repository can ship them), so they stay off until you "
    "trust them. A server's command runs as you; an allow rule or a mode lets calls through "
    "without asking. A change to any of them asks again."
)


def _shown(path: Path, workspace: Path) -> str:
    try:
        return path.relative_to(workspace).as_posix()
    except ValueError:
        return str(path)


class TrustDialog(KeyQuestion):
    """True: trust every listed item; False: start without them."""

    DEFAULT_CSS = """
    TrustDialog {
        align: center middle;
        background: $background 60%;
    }
    TrustDialog > #dialog {
        width: 90;
        max-width: 96%;
        height: auto;
        max-height: 100%;
        padding: 0 1;
        background: $surface;
        border: round $warning;
        border-title-color: $warning;
        border-title-style: bold;
        & > #why { color: $text-muted; margin-bottom: 1; }
        & > #items { height: auto; max-height: 20; background: $background; padding: 0 1; }
        & > #keys { margin-top: 1; color: $text-muted; }
    }
    """

    YES_KEY = "t"
    ARM_SECONDS = 0.4
    """A ``t`` typed sooner than this after the dialog opens is ignored: a keystroke meant for
    the prompt must not trust a repository."""

    def __init__(self, items: list[TrustItem], workspace: Path) -> None:
        super().__init__()
        self.items = items
        self.workspace = workspace

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as dialog:
            dialog.border_title = "Trust what this project turns on?"
            yield Static(WHY, id="why")
            with VerticalScroll(id="items", can_focus=False):
                yield Static(self._listing())
            yield Static(
                Content.assemble(
                    (" t ", "bold $warning reverse"),
                    " trust them (remembered for this folder) · any other key: ",
                    ("start without them", "bold"),
                ),
                id="keys",
            )

    def _listing(self) -> Content:
        by_file: dict[Path, list[TrustItem]] = defaultdict(list)
        for item in self.items:
            by_file[item.source].append(item)
        parts: list[Content] = []
        for source, items in by_file.items():
            parts.append(Content.styled(_shown(source, self.workspace), "bold"))
            for item in items:
                if item.kind == "mcp_server":
                    parts.append(
                        Content.assemble(
                            "  ▸ MCP server ",
                            (item.name, "bold $warning"),
                            ": ",
                            (item.detail, "$text-warning"),
                        )
                    )
                elif item.kind == "allow_rule":
                    parts.append(Content.assemble("  ▸ allow ", (item.name, "bold $warning")))
                elif item.kind == "hook_file":
                    parts.append(
                        Content.assemble("  ▸ run its hooks: ", (item.detail, "bold $text-warning"))
                    )
                elif item.kind == "env":
                    parts.append(
                        Content.assemble(
                            "  ▸ set for the agent's commands: ", (item.detail, "bold $warning")
                        )
                    )
                elif item.kind == "skill":
                    parts.append(
                        Content.assemble("  ▸ offer the skill ", (item.name, "bold $warning"))
                    )
                elif item.kind == "command_grant":
                    parts.append(
                        Content.assemble(
                            "  ▸ let ",
                            (item.name, "bold $warning"),
                            " allow during its turn: ",
                            (item.detail, "$text-warning"),
                        )
                    )
                else:
                    parts.append(
                        Content.assemble("  ▸ default mode ", (item.name, "bold $warning"))
                    )
        return Content("\n").join(parts)
