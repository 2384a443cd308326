"""Under the tool list: the highlighted tool's full name, the start of its description, why it
has its disclosure mark, and the permission that applies to its calls, in full."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from agent_tui.core.mcp.client.overview import ToolRow
from agent_tui.ui.common.format import first_line
from agent_tui.ui.mcp.fact_row import FactRow
from agent_tui.ui.mcp.look import mark_fact, permission_fact


class ToolSummary(Vertical):
    DEFAULT_CSS = """
    ToolSummary {
        height: auto;
        max-height: 8;
        padding: 0 2;
        & > #summary-title { height: 1; }
        & > #summary-description { text-style: italic; max-height: 2; }
        & #summary-problem, & #summary-unavailable { color: $warning; }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.tool: ToolRow | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="summary-title")
        yield Static(id="summary-description")
        yield FactRow("disclosure", id="summary-mark")
        yield FactRow("permission", id="summary-permission")
        yield FactRow("schema", id="summary-problem")
        yield FactRow("unavailable", id="summary-unavailable")

    def show(self, tool: ToolRow | None) -> None:
        self.display = tool is not None
        if tool == self.tool:
            return
        self.tool = tool
        if tool is None:
            return
        info = tool.info
        self.query_one("#summary-title", Static).update(
            Content.assemble(
                (tool.name, "bold"),
                (
                    f"   {info.remote_name} on {info.server} · enter: input schema",
                    "$foreground-muted",
                ),
            )
        )
        self.query_one("#summary-description", Static).update(
            Content(first_line(info.description, 300) or "(no description)")
        )
        self.query_one("#summary-mark", FactRow).set(mark_fact(tool))
        self.query_one("#summary-permission", FactRow).set(permission_fact(tool))
        self.query_one("#summary-problem", FactRow).set(
            f"replaced by a plain object: {info.schema_problem}" if info.schema_problem else None
        )
        self.query_one("#summary-unavailable", FactRow).set(info.unavailable)
