"""A tool in full, over the MCP panel: its description, marks and permission, and its input
schema as pretty, highlighted JSON. Scrolls with the arrows and page keys; Esc closes, c copies
the schema."""

from __future__ import annotations

import json

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from agent_tui.core.mcp.client.overview import ToolRow
from agent_tui.ui.common.clipboard import copy
from agent_tui.ui.mcp.fact_row import FactRow
from agent_tui.ui.mcp.look import access, mark_fact, permission_fact


def schema_json(tool: ToolRow) -> str:
    return json.dumps(tool.schema, indent=2, ensure_ascii=False)


class SchemaDialog(ModalScreen[None]):
    DEFAULT_CSS = """
    SchemaDialog {
        align: center middle;
        background: $background 60%;
    }
    SchemaDialog > #dialog {
        width: 100;
        max-width: 96%;
        height: auto;
        max-height: 92%;
        background: $surface;
        border: round $primary;
        border-title-color: $primary;
        border-title-style: bold;
        border-subtitle-color: $foreground-muted;
        padding: 0 1;
        & > #schema-body { height: auto; max-height: 85vh; scrollbar-size-vertical: 1; }
        & > #schema-body:focus { background-tint: transparent; }
        & #description { margin-bottom: 1; }
        & #problem { color: $warning; }
        & #schema-title { color: $foreground-muted; text-style: bold; margin-top: 1; }
        & #schema { background: $background; padding: 0 1; }
    }
    """

    BINDINGS = [
        Binding("escape", "close", "Close", id="mcp.schema.close"),
        Binding("q", "close", "Close", show=False, id="mcp.schema.quit"),
        Binding("c", "copy", "Copy schema", id="mcp.schema.copy"),
    ]

    def __init__(self, tool: ToolRow) -> None:
        super().__init__()
        self.tool = tool

    def compose(self) -> ComposeResult:
        tool = self.tool
        with Vertical(id="dialog") as dialog:
            dialog.border_title = tool.name
            dialog.border_subtitle = "esc closes · c copies the schema"
            with VerticalScroll(id="schema-body"):
                yield Static(Content(tool.info.description.strip()), id="description")
                yield FactRow("server", id="server")
                yield FactRow("remote name", id="remote")
                yield FactRow("access", id="access")
                yield FactRow("disclosure", id="mark")
                yield FactRow("permission", id="permission")
                yield FactRow("schema", id="problem")
                yield Static("Input schema", id="schema-title")
                from textual.highlight import highlight  # Pygments: when a dialog opens

                yield Static(highlight(schema_json(tool), language="json"), id="schema")

    def on_mount(self) -> None:
        tool, info = self.tool, self.tool.info
        label, style = access(info)
        self.query_one("#server", FactRow).set(info.server)
        self.query_one("#remote", FactRow).set(info.remote_name)
        self.query_one("#access", FactRow).set(Content.styled(label, style))
        self.query_one("#mark", FactRow).set(mark_fact(tool))
        self.query_one("#permission", FactRow).set(permission_fact(tool))
        self.query_one("#problem", FactRow).set(
            "the server's input schema is broken; the model sees a plain object instead: "
            f"{info.schema_problem}"
            if info.schema_problem
            else None
        )
        self.query_one("#schema-body", VerticalScroll).focus()

    def action_close(self) -> None:
        self.dismiss(None)

    def action_copy(self) -> None:
        copy(
            self.app,
            schema_json(self.tool),
            "The input schema is copied to the clipboard",
            title=self.tool.name,
        )
